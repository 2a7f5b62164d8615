/**
 * A cell's verdict from what its threads recorded (pure, on a made-up outcome): what told each
 * thread — the fault's own signal, its own re-consume refused by the broker, the broker's close of
 * a silence — and the verdict's class, the same when a cell behaves the same run after run.
 */
import type { FaultEvent } from '../../src/faults/toxiproxyClient';
import { MatrixBoard, MatrixInt } from '../../src/matrix/board';
import { PublishLedger } from '../../src/matrix/ledger';
import { PublishPhase } from '../../src/matrix/report';
import { computeMatrixResult } from '../../src/matrix/result';
import { leadingClause, verdictClass } from '../../src/matrix/verdict';
import { figuresOf } from '../report/support/reading';
import { PORT, at, confirmedAt, frame, outcomeOf } from './support/cellOutcome';

describe('what told a thread, and the verdict', () => {
  it('tells a re-consume refused (404) from noticing the cancel itself, and says so in the ✅ cell', () => {
    const events = [
      frame(0, 'downstream', 'basic.cancel'),
      frame(0.5, 'upstream', 'basic.consume'),
      frame(1, 'downstream', 'channel.close', 404),
    ];
    const refused = computeMatrixResult(outcomeOf('consumer_cancel', 'channel_closed', 1.2, events));
    expect(refused.details.threads[0]).toMatchObject({ noticed_as: 'refused_retry', detected_by: 'channel_closed' });
    expect(refused.details.threads[0]?.frames_during_fault).toEqual([
      expect.objectContaining({ from: 'broker', method: 'basic.cancel', count: 1 }),
      expect.objectContaining({ from: 'client', method: 'basic.consume', count: 1 }),
      expect.objectContaining({ from: 'broker', method: 'channel.close', reply_code: 404 }),
    ]);
    // ✅ with its figures (detection / recovery), then what told it: its own re-consume, refused with 404.
    const [figures, told] = refused.verdict.cell.split(' · ');
    expect(figures).toBe('✅ 1.2 / 150 ms');
    expect(told).toMatch(/^told by its own basic\.consume refused \(404\)/);
    // What the client did while the queue was absent, in the result's own words.
    expect(refused.notes).toContainEqual(
      expect.stringMatching(
        /^while the fault held, .*thread 0: broker basic\.cancel ×1 .*client basic\.consume ×1 .*broker channel\.close 404 ×1 \(first at 1 ms: NOT_FOUND - no queue\)/,
      ),
    );
    const noticed = computeMatrixResult(outcomeOf('consumer_cancel', 'consumer_cancelled', 0.3, events.slice(0, 1)));
    expect(noticed.details.threads[0]?.noticed_as).toBe('fault');
    expect(noticed.verdict.cell).toBe('✅ 0.3 / 150 ms');
    expect(verdictClass(noticed.verdict)).not.toBe(verdictClass(refused.verdict));
    // Recovery from the re-declaration's call (no frame of it passes the proxy): an upper bound, said so.
    expect(noticed.details.removal_reference).toEqual({
      source: 'api_call_start',
      exact: false,
      description: 'start of the call that undid the fault',
    });
  });

  it("does not take the broker's close of a silence for the client's own detection: a finding, not ✅", () => {
    const result = computeMatrixResult(
      outcomeOf(
        'dead_peer',
        'closed',
        12_000,
        [{ at_ns: String(at(0)), kind: 'data_dropped', connection_id: 1, client: `127.0.0.1:${PORT}` }],
        20_000,
      ),
      {
        heartbeatSeconds: 5,
      },
    );
    expect(result.details.threads[0]?.noticed_as).toBe('told_by_broker');
    expect(result.verdict).toMatchObject({ ok: false, class: 'finding', cell: '❌ told by the broker, not its heartbeat' });
    // The thread, the finding's class, when the broker told it and how (the close it received).
    const [told] = result.verdict.findings;
    expect(told).toMatch(/^thread 0: told by the broker at /);
    expect(figuresOf(told!)).toEqual(['12 s']);
    expect(told).toContain('(FIN (connection closed))');
    expect(result.details.heartbeat).toMatchObject({ judgement: 'not_by_itself', within: false });
  });

  it('makes a silence nobody noticed a finding even when the client carried on after it (a paused node resumed)', () => {
    const paused = outcomeOf('node_pause', 'heartbeat', 12_000, [], 25_000);
    // The library gave no event at all: the thread's board has its port, no detection.
    const board = new MatrixBoard(1);
    board.setInt(0, MatrixInt.LOCAL_PORT, PORT);
    const result = computeMatrixResult({ ...paused, board, allDetected: false }, { heartbeatSeconds: 5 });
    expect(result.details.threads[0]).toMatchObject({ detection_ms: null });
    expect(result.details.threads[0]?.recovered_ms).not.toBeNull();
    expect(result.verdict).toMatchObject({ ok: false, class: 'finding', cell: '❌ not noticed within 5 s' });
    expect(result.verdict.findings[0]).toMatch(/^thread 0: not noticed within 5 s: the library gave no event during a silence/);
    expect(result.details.heartbeat).toMatchObject({ judgement: 'not_by_itself', within: false });
    // A fault that is not a silence: carrying on without an event stays ✅ `not told`.
    const reset = outcomeOf('broker_close', 'broker_closed', 2, []);
    const quiet = computeMatrixResult({ ...reset, board, allDetected: false });
    expect(quiet.verdict.cell).toMatch(/^✅ not told \/ /);
  });

  it("says, through real Toxiproxy, that the broker's close can pass a silence there", () => {
    const silence = outcomeOf('dead_peer', 'closed', 12_000, [], 20_000);
    const result = computeMatrixResult(
      { ...silence, proxyServer: { kind: 'toxiproxy', version: '2.12.0', extensions: [] } },
      { heartbeatSeconds: 5 },
    );
    expect(result.notes).toContainEqual(expect.stringMatching(/^through Toxiproxy 2\.12\.0, .*hold_end.*the broker's close passes/));
    expect(result.verdict.findings[0]).toMatch(/told by the broker at 12 s .*\(through Toxiproxy 2\.12\.0/);
  });

  it('makes a cell ⚠ when no probe could be published after the removal, whatever the client did', () => {
    const outcome = { ...outcomeOf('broker_close', 'broker_closed', 2, []), probes: { sent: 0, failed: 4 } };
    const result = computeMatrixResult(outcome);
    expect(result.verdict).toMatchObject({ ok: false, class: 'harness', findings: [] });
    expect(result.verdict.harness_problems).toHaveLength(1);
    expect(result.verdict.harness_problems![0]).toMatch(/^no probe could be published/);
    expect(figuresOf(result.verdict.harness_problems![0]!)).toEqual(['4 attempt(s)']);
  });

  it('names a thread whose consumer and publisher came back but whose own messages did not, in whole words', () => {
    const back = outcomeOf('ack_timeout', 'channel_closed', 1, [frame(0, 'downstream', 'channel.close', 406)]);
    // Its consumer got something after the removal and its publisher was confirmed, but none of its own messages published after the removal came back.
    const ledger = new PublishLedger();
    ledger.published(0, PublishPhase.BEFORE, at(-10));
    ledger.confirmed(0);
    ledger.delivered(0, at(2050));
    ledger.published(1, PublishPhase.AFTER_REMOVAL, at(2100));
    ledger.confirmed(1);
    ledger.classAll();
    // Message 1 waits in the queue the consumer no longer reads: not lost.
    const result = computeMatrixResult({
      ...back,
      threads: [{ ...back.threads[0]!, ...confirmedAt(ledger, { 0: -9, 1: 2120 }) }],
      leftInQueue: [new Map([[1, 1]])],
      allRecovered: false,
    });
    expect(result.verdict.findings[0]).toMatch(/^thread 0: not back within 10 s of the removal \(/);
    expect(result.verdict.cell).toBe('❌ not back');
  });

  it('does not read a thread back whose own message came but none of whose publishes after the removal was confirmed', () => {
    // py-amqp after a 404: the channel it opened again routes the publish and never confirms it (out of confirm mode).
    const reopened = outcomeOf('channel_error', 'channel_closed', 1, [frame(0, 'downstream', 'channel.close', 404)]);
    const withOwnMessage = (confirmed: boolean) => {
      const ledger = new PublishLedger();
      ledger.published(0, PublishPhase.BEFORE, at(-10));
      ledger.confirmed(0);
      ledger.delivered(0, at(-9));
      ledger.published(1, PublishPhase.AFTER_REMOVAL, at(2100));
      if (confirmed) ledger.confirmed(1);
      ledger.delivered(1, at(2101));
      ledger.classAll();
      return computeMatrixResult({ ...reopened, threads: [{ ...reopened.threads[0]!, ...confirmedAt(ledger, { 0: -9, 1: 2120 }) }] });
    };
    const unconfirmed = withOwnMessage(false);
    expect(unconfirmed.details.threads[0]).toMatchObject({ publisher_back_after_removal_ms: null });
    expect(unconfirmed.details.threads[0]?.recovered_ms).toBeNull();
    expect(unconfirmed.verdict.findings[0]).toMatch(
      /^thread 0: publisher never came back: its consumer got deliveries after the removal, but none /,
    );
    expect(unconfirmed.verdict.cell).toMatch(/^❌ publisher not back/);
    // The same thread with that publish confirmed is back, from the later of the delivery and the confirm.
    const confirmed = withOwnMessage(true);
    expect(confirmed.verdict.cell).toMatch(/^✅ /);
    const thread = confirmed.details.threads[0]!;
    expect(thread.recovered_after_removal_ms).toBeGreaterThanOrEqual(thread.publisher_back_after_removal_ms!);
  });

  it('cuts a finding the cell has no words for at its first clause, never inside a word', () => {
    expect(leadingClause('thread 0: something new happened (its last event: channel_closed "x")')).toBe('something new happened');
    const long = 'thread 1: ' + 'a very long description of what went wrong with this client '.repeat(3);
    const clause = leadingClause(long);
    expect(clause.length).toBeLessThanOrEqual(62);
    expect(clause).toMatch(/^a very long description .* …$/);
    expect(long).toContain(clause.replace(' …', ''));
  });

  it('adds how the library notices a silence to the findings of a silence it did not notice by itself', () => {
    const dropped: FaultEvent = { at_ns: String(at(0)), kind: 'data_dropped', connection_id: 1, client: `127.0.0.1:${PORT}` };
    const silence = outcomeOf('dead_peer', 'closed', 12_000, [dropped], 20_000);
    const check = 'heartbeats checked only between publishes, never while one waits for its confirm';
    const result = computeMatrixResult(silence, { heartbeatSeconds: 5, silenceCheck: check });
    expect(result.verdict.findings).toContain(`how the library notices a silence: ${check}`);
    expect(result.verdict.cell).toBe('❌ told by the broker, not its heartbeat');
    expect(result.details.heartbeat?.summary).toMatch(/How it notices: heartbeats checked only between publishes/);
  });

  it("says a client program's publishes during a stall waited in the program, not that the library took them", () => {
    const stalled = outcomeOf('stop_reading', 'channel_closed', 1, [frame(0, 'upstream', 'basic.publish')]);
    const samples = [0, 500, 1000].map((ms) => ({
      atNs: String(at(ms)),
      heapBytes: 0,
      externalBytes: 0,
      rssBytes: 0,
      programRssBytes: null,
      outstanding: ms,
      held: false,
    }));
    const polls = { pollsBeforeInjection: 0, heldPollsBeforeInjection: 0 };
    const stall = { signal: false, episodes: 0, heldAtInjection: false, ...polls, heldAtRemoval: false, longestPollGapMs: 5, samples };
    const thread = (outOfProcess: boolean) => ({ ...stalled.threads[0]!, stall: { ...stall, outOfProcess } });
    const program = computeMatrixResult({ ...stalled, threads: [thread(true)] });
    const inProcess = computeMatrixResult({ ...stalled, threads: [thread(false)] });
    expect([program.verdict.findings, inProcess.verdict.findings].map((findings) => findings.length)).toEqual([1, 1]);
    const [handed, took] = [program.verdict.findings[0]!, inProcess.verdict.findings[0]!];
    for (const finding of [handed, took]) expect(finding).toMatch(/^thread 0: no back-pressure signal: the library has none; /);
    // The stall's figures either way: publishes during it, MB/s offered, its length, outstanding at the removal.
    const offered = ['0', '0 MB/s', '2.001 s', '1000'];
    // A program's publishes waited in the program, its memory unmeasured; a worker's library took them, its memory measured.
    expect(figuresOf(handed)).toEqual(offered);
    expect(handed).toMatch(/waited in the program's own process/);
    expect(figuresOf(took)).toEqual([...offered, '+0 MB/s', '+0 MB/s']);
  });

  // A signal on from before the fault was in place until the removal never turned on for the stall:
  // not "no signal" (an application checking it would have held its writes), but not the library
  // noticing the stall either; one that stayed off is "no signal", its states the evidence.
  it('tells a back-pressure signal on already under the ordinary load from one that never turned on, with their states', () => {
    const stalled = outcomeOf('stop_reading', 'channel_closed', 1, [frame(0, 'upstream', 'basic.publish')]);
    const samples = [-500, 0, 500, 1000].map((ms) => ({
      atNs: String(at(ms)),
      heapBytes: 0,
      externalBytes: 0,
      rssBytes: 0,
      programRssBytes: null,
      outstanding: 50,
      held: ms >= 0,
    }));
    const stall = (held: boolean) => ({
      signal: true,
      episodes: 0,
      outOfProcess: false,
      heldAtInjection: held,
      pollsBeforeInjection: 200,
      heldPollsBeforeInjection: held ? 150 : 0,
      heldAtRemoval: held,
      longestPollGapMs: 37.25,
      samples: samples.map((sample) => ({ ...sample, held: held && sample.held })),
    });
    const [onAlready, off] = [true, false].map((held) =>
      computeMatrixResult({ ...stalled, threads: [{ ...stalled.threads[0]!, stall: stall(held) }] }),
    );
    expect(onAlready!.details.threads[0]!.stall).toMatchObject({ signal: 'on_already', signal_on_share: 1, signal_on_share_before: 0.75 });
    const [already] = onAlready!.verdict.findings;
    expect(already).toMatch(/^thread 0: back-pressure signal already on under the ordinary load: on at the injection/);
    expect(already).not.toMatch(/no back-pressure signal/);
    expect(figuresOf(already!).slice(0, 3)).toEqual(['75%', '200', '37.25 ms']);
    expect(onAlready!.verdict.cell).toBe('❌ back-pressure signal on already before the stall');
    const [never] = off!.verdict.findings;
    expect(never).toMatch(
      /^thread 0: no back-pressure signal: the library's own never turned on during the stall \(off at the injection, off at the removal, on in 0% /,
    );
    expect(off!.verdict.cell).toBe('❌ no back-pressure signal');
  });

  it('keeps the class of a verdict without its figures', () => {
    expect(verdictClass({ cell: '✅ 12.5 / 1180 ms' })).toBe('✅ N / N ms');
    expect(verdictClass({ cell: '❌ 17 publishes hung, stopped consuming' })).toBe('❌ N publishes hung, stopped consuming');
    expect(verdictClass({ cell: '⚠ harness: only 1 of 2 threads started' })).toBe('⚠ harness');
  });
});
