/** The one-node cluster the Elasticsearch endpoints describe: its name and uuid. */
export const ES_CLUSTER_NAME = 'trawl';
export const ES_CLUSTER_UUID = 'trawl';
