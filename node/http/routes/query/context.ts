/** What the query endpoints share: the node, its query service and the jobs requests wait for. */
import type { Job } from '../../../../coordinator/jobs';
import type { QueryService } from '../../../../coordinator/query-service';
import type { App } from '../../../app/app';

export interface QueryRoutesContext {
  app: App;
  service: QueryService;
  /** Jobs a request is waiting for (sync window, hybrid): a shutdown lets them finish. */
  awaited: Set<Job>;
}

/** JSON bodies are parsed by the body reader and validated against the route's schema. */
export const JSON_BODY = { bodyFormat: 'json', bodyExample: '{"q": "from main | head 10"}' } as const;
