// Valid sample queries shared by the grammar and fuzz tests.

/** Valid queries covering every stage, operator and construct; each must have exactly one parse. */
export const SAMPLES = [
  'from main',
  'from main, web-*, `my index` | head',
  'from * | search "connection reset" OR timeout status=5* NOT (a AND b) c d OR e x!=y',
  'from m | where a or b and not c = 1 or d in (1, 2) and e not in ("x") and f like "a%" and g not like "b"',
  'from m | where h has "t" and i not has "u" and j =~ "re" and k !~ "re" and l is null and m is not null',
  'from m | where a + b * c - d / e % f = -g and (a < b) = (c <= d) and e > f and g >= h and i != j and k == l',
  'from m | extend x = if(a > 1, "big", "small"), y = case(a = 1, "one", a = 2, "two", "many"), z = -5 - -3',
  'from m | extend t = bin(_time, 5m), u = now() - 1h, v = strftime(_time, "%Y"), w = json_extract(s, "$.a.b")',
  'from m | parse json(_raw) | parse kv(msg) | parse logfmt(msg) | parse combined(_raw) | parse clf(_raw) | parse syslog(_raw)',
  'from m | parse regex(msg, "(?<ms>\\\\d+)ms") | parse pattern(_raw, "<ip> - <user> [<ts>]")',
  'from m | keep a, b.*, `c d` | drop tmp_* | rename a as b, c as d | dedup a, b',
  'from m | head 5 | tail | tail 7 | head',
  'from m | stats count() as n, p99(ms), percentile(ms, 95), countif(status >= 500) by host, bin(_time, 5m) as t',
  'from m | stats count() by host | sort count() desc, host asc, len(host)',
  'from m | sort by _time desc, host',
  'from m | stats by host, region',
  'from m | top 5 host, status by region | sort count() desc',
  'from m | top uri',
  'from m | where from = 1 and top = 2 and `and` = 3 and status-code = 4 and a - b = 5',
];
