/**
 * Raw ingest over real logs (Loghub samples in test/fixtures/loghub, see its README for attribution).
 * Receive time fixed at 2024-06-15T12:00:00Z, so year-less formats resolve to 2023 or 2024.
 */
import { strict as assert } from 'assert';
import type { LogEvent } from '../../../storage/core/event';
import { normalizeLevel } from '../../../node/ingest/level';
import { parseRawLines } from '../../../node/ingest/raw';
import { assertValidEvent, ctx, fixture, NOW } from './helpers';

interface SystemSpec {
  /** Share of lines whose time must be detected. */
  timeCoverage: number;
  /** The level the line itself states (canonical), or undefined when the format has no level column. */
  levelOf?: (line: string) => string | undefined;
  /** For formats with an epoch column: the expected time. */
  epochOf?: (line: string) => number;
  /** Share of lines that must get a `host` (syslog formats). */
  hostCoverage?: number;
}

const word =
  (re: RegExp) =>
  (line: string): string | undefined => {
    const m = re.exec(line);
    return m ? normalizeLevel(m[1]!) : undefined;
  };
const LOGCAT: Record<string, string> = { V: 'trace', D: 'debug', I: 'info', W: 'warn', E: 'error', F: 'fatal' };

const SYSTEMS: Record<string, SystemSpec> = {
  Android: { timeCoverage: 1, levelOf: (l) => LOGCAT[/^\S+ \S+\s+\d+\s+\d+ ([VDIWEF]) /.exec(l)![1]!] },
  Apache: { timeCoverage: 1, levelOf: word(/^\[[^\]]+\] \[(\w+)\]/) },
  BGL: { timeCoverage: 1, levelOf: word(/^\S+ \d+ \S+ \S+ \S+ \S+ \S+ \S+ (\w+)/), epochOf: (l) => Number(l.split(' ')[1]) * 1e6 },
  HDFS: { timeCoverage: 1, levelOf: word(/^\d+ \d+ \d+ (\w+)/) },
  HPC: { timeCoverage: 0 }, // unsupported: the epoch is the fifth column (`134681 node-246 unix.hw state_change.unavailable 1077804742 ...`)
  Hadoop: { timeCoverage: 1, levelOf: word(/^\S+ \S+ (\w+)/) },
  HealthApp: { timeCoverage: 1 },
  Linux: { timeCoverage: 1, hostCoverage: 0.95 },
  Mac: { timeCoverage: 1, hostCoverage: 0.9 },
  OpenSSH: { timeCoverage: 1, hostCoverage: 1 },
  OpenStack: { timeCoverage: 1, levelOf: word(/^\S+ \S+ \S+ \d+ (\w+)/) },
  Proxifier: { timeCoverage: 1 },
  Spark: { timeCoverage: 1, levelOf: word(/^\S+ \S+ (\w+)/) },
  Thunderbird: { timeCoverage: 1, epochOf: (l) => Number(l.split(' ')[1]) * 1e6 },
  Windows: { timeCoverage: 1, levelOf: word(/^\S+ \S+ (\w+)/) },
  Zookeeper: { timeCoverage: 1, levelOf: word(/^\S+ \S+ - (\w+)/) },
};

describe('ingest raw pipeline on Loghub samples', () => {
  for (const [system, spec] of Object.entries(SYSTEMS)) {
    describe(system, () => {
      let lines: string[];
      let events: LogEvent[];
      before(() => {
        const body = fixture('loghub', `${system}_2k.log`);
        lines = body
          .split('\n')
          .filter((l) => l.trim() !== '')
          .map((l) => l.replace(/\r$/, ''));
        events = parseRawLines(body, { source: system.toLowerCase() }, ctx()).events;
      });

      it('gives one valid event per line', () => {
        assert.equal(events.length, lines.length);
        assert.ok(events.length >= 200);
        events.forEach((e, i) => {
          assertValidEvent(e);
          assert.equal(e.raw, lines[i]);
        });
      });

      it(`detects the time on ${spec.timeCoverage * 100}% of lines`, () => {
        const timed = events.filter((e) => e.time !== NOW);
        const share = timed.length / events.length;
        if (spec.timeCoverage === 0) assert.equal(share, 0, 'an unsupported format now detects times: update the list');
        else
          assert.ok(
            share >= spec.timeCoverage,
            `${system}: ${(share * 100).toFixed(1)}% timed; first miss: ${events.find((e) => e.time === NOW)?.raw}`,
          );
        for (const e of timed) assert.ok(e.time < NOW + 86_400_000_000, `time in the future: ${e.raw}`);
      });

      if (spec.epochOf) {
        it('uses the epoch column', () => {
          events.forEach((e, i) => assert.equal(e.time, spec.epochOf!(lines[i]!), lines[i]));
        });
      }

      if (spec.levelOf) {
        it('finds the stated level on every line', () => {
          events.forEach((e, i) => assert.equal(e.fields.level, spec.levelOf!(lines[i]!), lines[i]));
        });
      } else {
        it('rarely claims a level where the format has none', () => {
          const share = events.filter((e) => e.fields.level !== undefined).length / events.length;
          assert.ok(share < 0.1, `${(share * 100).toFixed(1)}% with a level`);
        });
      }

      if (spec.hostCoverage !== undefined) {
        it('reads the syslog host and tag', () => {
          const withHost = events.filter((e) => typeof e.fields.host === 'string' && typeof e.fields.appname === 'string');
          assert.ok(withHost.length / events.length >= spec.hostCoverage!);
          for (const e of withHost) {
            const [, , , host] = e.raw.split(/\s+/);
            assert.equal(e.fields.host, host, e.raw);
          }
        });
      }

      it('keeps the header source', () => {
        for (const e of events) assert.equal(e.fields.source, system.toLowerCase());
      });
    });
  }

  it('spot checks: exact times of known lines', () => {
    const check = (system: string, line: string, iso: string): void => {
      const { events } = parseRawLines(line, {}, ctx());
      assert.equal(new Date(events[0]!.time / 1000).toISOString(), iso, `${system}: ${line}`);
    };
    check('HDFS', '081109 203615 148 INFO dfs.DataNode$PacketResponder: PacketResponder 1', '2008-11-09T20:36:15.000Z');
    check('Hadoop', '2015-10-18 18:01:47,978 INFO [main] org.apache.hadoop', '2015-10-18T18:01:47.978Z');
    check('HealthApp', '20171223-22:15:29:606|Step_LSC|30002312|onStandStepChanged 3579', '2017-12-23T22:15:29.606Z');
    check('Linux', 'Jun 14 15:16:01 combo sshd(pam_unix)[19939]: authentication failure;', '2024-06-14T15:16:01.000Z');
    check('Mac', 'Jul  1 09:00:55 calvisitor-10-105-160-95 kernel[0]: IOThunderboltSwitch', '2023-07-01T09:00:55.000Z');
    check('OpenSSH', 'Dec 10 06:55:46 LabSZ sshd[24200]: reverse mapping', '2023-12-10T06:55:46.000Z');
    check('Proxifier', '[10.30 16:49:06] chrome.exe - proxy.cse.cuhk.edu.hk:5070 open', '2023-10-30T16:49:06.000Z');
    check('Spark', '17/06/09 20:10:40 INFO executor.CoarseGrainedExecutorBackend', '2017-06-09T20:10:40.000Z');
    check('Android', '03-17 16:13:38.811  1702  2395 D WindowManager: x', '2024-03-17T16:13:38.811Z');
    check('Apache', '[Sun Dec 04 04:47:44 2005] [notice] workerEnv.init() ok', '2005-12-04T04:47:44.000Z');
    check('OpenStack', 'nova-api.log.1.2017-05-16_13:53:08 2017-05-16 00:00:00.008 25746 INFO nova', '2017-05-16T00:00:00.008Z');
    check('Windows', '2016-09-28 04:30:30, Info                  CBS    Loaded Servicing Stack', '2016-09-28T04:30:30.000Z');
    check('Zookeeper', '2015-07-29 17:41:44,747 - INFO  [QuorumPeer[myid=1]', '2015-07-29T17:41:44.747Z');
  });
});
