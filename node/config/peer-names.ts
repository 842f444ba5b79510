/**
 * How a cluster member is named: its node id (`cluster.node_id`, `--node-id`) and its addresses
 * (`listen`, `cluster.grpc_listen`). The config checks its own, and membership checks every member
 * a peer names with the same rules, so a peer cannot bring in an id or address no node could have.
 */

/** Letters, digits, `.`, `_` and `-`, starting with a letter or digit: a host name (the default id) passes. */
export const NODE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
/** As long as a host name may be. */
export const MAX_NODE_ID_LENGTH = 253;
/** A host name or an IPv4 address and a port, or `[IPv6]:port`. */
const HOST_PORT = /^[^\s:]*:\d{1,5}$|^\[[0-9a-fA-F:]+\]:\d{1,5}$/;
/** A host name of 253 characters and a port. */
export const MAX_ADDRESS_LENGTH = 261;

/** Why `id` cannot be a node id (null: it can). */
export function nodeIdProblem(id: string): string | null {
  if (id.length === 0) return 'a node id is required';
  if (id.length > MAX_NODE_ID_LENGTH) return `a node id has at most ${MAX_NODE_ID_LENGTH} characters, not ${id.length}`;
  if (!NODE_ID.test(id))
    return `node id ${JSON.stringify(id)} may hold letters, digits, ".", "_" and "-", and starts with a letter or digit`;
  return null;
}

/**
 * A member's address: a host name or IPv4 address, `[IPv6]`, or a bare IPv6 address (as nodes
 * announced their HTTP address before brackets), and a port; nothing a URL would read otherwise.
 */
const MEMBER_ADDRESS = /^(?:[A-Za-z0-9._-]+|\[[0-9a-fA-F:.]+\]|[0-9a-fA-F:.]+):\d{1,5}$/;

/** Whether `address` is HOST:PORT (port at most 65535) within MAX_ADDRESS_LENGTH. */
export function isHostPort(address: string): boolean {
  if (address.length > MAX_ADDRESS_LENGTH || !HOST_PORT.test(address)) return false;
  return Number(address.slice(address.lastIndexOf(':') + 1)) <= 65535;
}

/** Whether `address` can be a member's (from a peer, a stored state, or this node's listen addresses in a cluster). */
export function isMemberAddress(address: string): boolean {
  return (
    address.length <= MAX_ADDRESS_LENGTH && MEMBER_ADDRESS.test(address) && Number(address.slice(address.lastIndexOf(':') + 1)) <= 65535
  );
}
