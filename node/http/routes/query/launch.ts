/** Starting a query job, with the refusals a request answers: an invalid query, too many queries. */
import { TooManyQueriesError, type QueryService } from '../../../../coordinator/query-service';
import { QueryError } from '../../../../query/syntax';
import { ApiError, invalidQuery } from '../../../core/errors';

export function launchQuery(
  service: QueryService,
  request: Parameters<QueryService['start']>[0],
  options: Parameters<QueryService['start']>[1],
): ReturnType<QueryService['start']> {
  try {
    return service.start(request, options);
  } catch (error) {
    if (error instanceof QueryError) throw invalidQuery(error);
    if (error instanceof TooManyQueriesError) throw new ApiError('TOO_MANY_REQUESTS', error.message);
    throw error;
  }
}
