/**
 * The fast path of `POST /ingest`: reads the body's bytes once (json-bytes.ts) and writes each
 * event straight into its chunk's columns (storage/buffer/byte-chunk-builder.ts), with no JS object per
 * event and no JS string per value. JSON.parse, the object walk and chunk building were the parse
 * workers' whole CPU, and the objects they made kept the garbage collector busy.
 *
 * It only takes bodies it can map exactly as native.ts does: valid JSON and UTF-8, every element
 * accepted, flat `fields` (strings, finite numbers, booleans, null), labels as strings, times in the
 * accepted window. Anything else (a syntax error, a failed or refused element, nested fields, a
 * duplicate key, a lone surrogate escape, a field name that starts with a digit, which JS objects
 * would reorder) returns null, and the caller runs the general parser, which gives the same events
 * or the exact error and refusals. A differential property in
 * test/unit/ingest/native-scan.test.ts holds both paths to byte-identical chunk records.
 */
import { isAscii, isUtf8 } from 'buffer';
import { ByteChunkBuilder, ByteDictionary, type ByteFieldBuilder } from '../../storage/buffer/byte-chunk-builder';
import { DEFAULT_INDEX, isValidIndexName } from '../../storage/core/event';
import type { EventChunk } from '../../storage/buffer/event-chunk';
import type { Placement } from '../../storage/core/partition';
import { KeyedChunks, PairSpill } from '../../storage/core/request-placement';
import { isStorableFieldName, LABEL_FIELDS, receivedAt, type IngestContext } from './common';
import { MAX_FIELDS_PER_EVENT } from './refusal';
import { CLOSE_BRACE, CLOSE_BRACKET, COLON, hashBytes, JSON_FALLBACK, JsonByteReader, OPEN_BRACE, OPEN_BRACKET, QUOTE } from './json-bytes';
import { secondsToMicros } from './timevalue';

/** Kinds of a `fields` entry's value. */
const NULL = 0;
const STRING = 1;
const NUMBER = 2;
const TRUE = 3;
const FALSE = 4;

/** Top-level keys native.ts reads (others are skipped); labels are 10 + their number. */
const EVENT = 1;
const TIME = 2;
const INDEX = 3;
const FIELDS = 4;
const LABEL_KEY = 10;

/** Labels: the top-level ones (SOURCE, SOURCETYPE, HOST) and `level`, which must hold strings. */
const SOURCE = 1;
const SOURCETYPE = 2;
const HOST = 3;
const LEVEL = 4;
const LABEL_NAMES = ['', ...LABEL_FIELDS];
/** Top-level labels not already in `fields` are added after them, in this order (native.ts LABELS). */
const APPENDED_LABELS = [SOURCE, SOURCETYPE, HOST];

/** The top-level keys by number, and their text as bytes by number. */
const TOP_KEYS: readonly (readonly [number, string])[] = [
  [EVENT, 'event'],
  [TIME, 'time'],
  [INDEX, 'index'],
  [FIELDS, 'fields'],
  ...APPENDED_LABELS.map((label) => [LABEL_KEY + label, LABEL_NAMES[label]] as const),
];
const KEY_TEXT: Buffer[] = [];
for (const [key, text] of TOP_KEYS) KEY_TEXT[key] = Buffer.from(text);
/** Top-level keys an element may have before the scanner stops predicting them. */
const PREDICTED_KEYS = 32;

/** How a `fields` name maps in one chunk. */
interface NameSlot {
  nameBytes: Buffer;
  name: string;
  /** The name's code in the scanner's `names`. */
  code: number;
  /** Names native.ts drops (empty, reserved). */
  skip: boolean;
  label: number;
  field: ByteFieldBuilder | null;
}

interface ChunkState {
  builder: ByteChunkBuilder;
  /**
   * The previous event's slots by position: events of one source share a shape, so a name is
   * mostly matched by comparing its bytes. Other names go through the scanner's `names` (a
   * byte-keyed lookup, one for the request: a chunk per key would each decode every name again).
   */
  shape: NameSlot[];
  /** This chunk's slots by the code of their name in the scanner's `names`. */
  slots: NameSlot[];
  /** The fields of the top-level labels, by label number, once created. */
  labels: (ByteFieldBuilder | undefined)[];
}

function labelOf(name: string): number {
  const label = LABEL_NAMES.indexOf(name);
  return label < 0 ? 0 : label;
}

/**
 * Room an event's text is first read into at the end of a chunk's `_raw` list (longer ones are
 * read again): twice the longest text so far, within these bounds. Reserving the most for every
 * chunk grew each key's list of a request spread over many keys to 64 KiB.
 */
const RAW_RESERVE = 64 * 1024;
const RAW_RESERVE_MIN = 1024;

/** Per thread: an event's unescaped text when no chunk list takes it (grown for longer texts), and other unescaped values. */
let eventText = Buffer.allocUnsafe(RAW_RESERVE);
let scratch = Buffer.allocUnsafe(1024);
/** Per thread: an element's (host, source) pair as bytes (see NativeScanner.nextPartition). */
let pairBytes = Buffer.allocUnsafe(256);

/**
 * Per thread: where the scan notes an element's `fields` entries before writing its row. Shared by
 * every scan (a scan runs to its end without yielding), so that a small body allocates none of it.
 */
const ENTRIES = {
  nameStart: new Int32Array(MAX_FIELDS_PER_EVENT),
  nameEnd: new Int32Array(MAX_FIELDS_PER_EVENT),
  kind: new Uint8Array(MAX_FIELDS_PER_EVENT),
  valueStart: new Int32Array(MAX_FIELDS_PER_EVENT),
  valueEnd: new Int32Array(MAX_FIELDS_PER_EVENT),
  valueEscaped: new Uint8Array(MAX_FIELDS_PER_EVENT),
  valueAscii: new Uint8Array(MAX_FIELDS_PER_EVENT),
  valueHash: new Uint32Array(MAX_FIELDS_PER_EVENT),
  numbers: new Float64Array(MAX_FIELDS_PER_EVENT),
};

class NativeScanner {
  private readonly json: JsonByteReader;
  private readonly rowsHint: number;
  /** Elements placed in a chunk so far (see newChunkRows). */
  private rowsPlaced = 0;

  // The current element's top-level keys.
  private seen = 0;
  private eventLength = -1;
  /** The longest event text read so far (see RAW_RESERVE). */
  private longestText = 0;
  private eventAscii = true;
  /** The chunk whose `_raw` list holds the event text past its end, or null: `eventText` holds it. */
  private eventIn: ChunkState | null = null;
  private time = 0;
  private hasTime = false;
  private indexStart = -1;
  private indexEnd = 0;
  private indexEscaped = false;
  /** Top-level labels by label number: content start (-1: not given), end, flags, hash. */
  private readonly labelStart = new Int32Array(4);
  private readonly labelEnd = new Int32Array(4);
  private readonly labelEscaped = [false, false, false, false];
  private readonly labelAscii = [true, true, true, true];
  private readonly labelHash = new Uint32Array(4);

  // The current element's `fields` entries (the thread's arrays: a scan runs start to end).
  private entries = 0;
  private readonly nameStart = ENTRIES.nameStart;
  private readonly nameEnd = ENTRIES.nameEnd;
  private readonly kind = ENTRIES.kind;
  private readonly valueStart = ENTRIES.valueStart;
  private readonly valueEnd = ENTRIES.valueEnd;
  private readonly valueEscaped = ENTRIES.valueEscaped;
  private readonly valueAscii = ENTRIES.valueAscii;
  private readonly valueHash = ENTRIES.valueHash;
  private readonly numbers = ENTRIES.numbers;

  /** The previous element's top-level keys by position (0: not one native.ts reads). */
  private readonly keys = new Uint8Array(PREDICTED_KEYS + 1);
  /** The chunk of the previous row, whose shape predicts this element's `fields` names, and the slots matched. */
  private predictedState: ChunkState | null = null;
  private readonly predicted: (NameSlot | null)[] = [];

  private readonly chunks: KeyedChunks<ChunkState>;
  /** The `fields` names of the request, and what each maps to (its slot without a field), by code. */
  private readonly names = new ByteDictionary();
  private readonly nameSlots: NameSlot[] = [];
  /** With several partitions: the request's (host, source) pairs by code, and their spill. */
  private readonly pairs: ByteDictionary | null;
  private readonly spill: PairSpill;
  private lastIndexBytes: Buffer | null = null;
  private lastIndex = DEFAULT_INDEX;

  constructor(
    private readonly src: Buffer,
    private readonly now: number,
    /** The accepted window of event times (IngestContext): a time outside refuses its event. */
    private readonly oldest: number,
    private readonly newest: number,
    private readonly placement: Placement,
  ) {
    this.json = new JsonByteReader(src);
    // Bench and shipper events run 200-600 bytes of JSON; with one partition a body's first chunk
    // usually takes all of them, with several they share the partitions (zeroing columns sized
    // for the whole body in every chunk cost more than the parse).
    const rows = Math.ceil(src.length / 256 / Math.max(1, placement.partitions));
    this.rowsHint = Math.max(16, Math.min(1 << 16, rows));
    this.pairs = placement.partitions > 1 ? new ByteDictionary() : null;
    this.spill = new PairSpill(placement.partitions);
    this.chunks = new KeyedChunks(placement, (key) => ({
      builder: new ByteChunkBuilder(key, this.newChunkRows()),
      shape: [],
      slots: [],
      labels: [],
    }));
  }

  run(): EventChunk[] {
    const json = this.json;
    json.whitespace();
    json.expect(OPEN_BRACKET);
    json.whitespace();
    if (json.peek() === CLOSE_BRACKET) json.pos++;
    else {
      do {
        json.whitespace();
        this.element();
      } while (json.more(CLOSE_BRACKET));
    }
    json.whitespace();
    if (json.pos !== json.end) throw JSON_FALLBACK;
    return [...this.chunks.values()].map((state) => state.builder.build());
  }

  /**
   * Reads `event`'s text into where its row will most likely keep it: the end of the previous
   * row's chunk `_raw` list (uncommitted), else `eventText`. Notes the place in `eventIn`.
   */
  private eventText(): number {
    const json = this.json;
    const start = json.pos;
    const state = this.predictedState;
    // Writes past a typed array's end are dropped, so a text longer than the room is read again.
    if (state !== null) {
      const raws = state.builder.raws;
      const at = raws.writeOffset;
      const room = Math.min(RAW_RESERVE, Math.max(RAW_RESERVE_MIN, 2 * this.longestText));
      const target = raws.reserve(Math.min(json.end - start, room));
      const length = json.copiedString(target, at);
      if (length > this.longestText) this.longestText = length;
      if (at + length <= target.length) {
        this.eventIn = state;
        return length;
      }
      json.pos = start;
    }
    this.eventIn = null;
    const length = json.copiedString(eventText, 0);
    if (length > this.longestText) this.longestText = length;
    if (length <= eventText.length) return length;
    eventText = Buffer.allocUnsafe(json.end - start);
    json.pos = start;
    return json.copiedString(eventText, 0);
  }

  /** Which top-level key the last string names (0: one native.ts ignores). */
  private topKey(): number {
    if (this.json.strEscaped) throw JSON_FALLBACK;
    for (const [key, text] of TOP_KEYS) if (this.json.stringIs(text)) return key;
    return 0;
  }

  /** One array element: its keys noted, then its row written. */
  private element(): void {
    const json = this.json;
    json.expect(OPEN_BRACE);
    this.seen = 0;
    this.eventLength = -1;
    this.hasTime = false;
    this.indexStart = -1;
    this.labelStart[SOURCE] = -1;
    this.labelStart[SOURCETYPE] = -1;
    this.labelStart[HOST] = -1;
    this.entries = 0;
    this.predictedState = this.chunks.last;
    let position = 0;
    do {
      json.whitespace();
      if (json.peek() !== QUOTE) throw JSON_FALLBACK; // also `{}`, which has no `event`
      // Elements mostly repeat the previous one's keys: match the expected key's bytes first.
      const expected = this.keys[position];
      let key: number;
      if (expected !== 0 && json.matchesKey(KEY_TEXT[expected])) key = expected;
      else {
        json.string();
        key = this.topKey();
      }
      if (position < PREDICTED_KEYS) this.keys[position++] = key;
      if (key !== 0) {
        // JSON.parse keeps the last of duplicate keys; rare enough to leave to it.
        if ((this.seen & (1 << key)) !== 0) throw JSON_FALLBACK;
        this.seen |= 1 << key;
      }
      json.whitespace();
      json.expect(COLON);
      json.whitespace();
      const c = json.peek();
      if (c === 110) {
        json.literal('null');
        if (key === EVENT) throw JSON_FALLBACK; // required
        continue; // null means "not given"
      }
      switch (key) {
        case 0:
          json.skipValue();
          break;
        case EVENT:
          if (c !== QUOTE) throw JSON_FALLBACK;
          this.eventLength = this.eventText();
          this.eventAscii = json.strAscii;
          break;
        case TIME:
          if (c !== 45 && !(c >= 48 && c <= 57)) throw JSON_FALLBACK;
          this.time = json.number();
          this.hasTime = true;
          break;
        case INDEX:
          if (c !== QUOTE) throw JSON_FALLBACK;
          json.string();
          if (json.strEnd > json.strStart) {
            this.indexStart = json.strStart;
            this.indexEnd = json.strEnd;
            this.indexEscaped = json.strEscaped;
          }
          break;
        case FIELDS:
          this.fields();
          break;
        default: {
          if (c !== QUOTE) throw JSON_FALLBACK;
          json.string();
          const label = key - LABEL_KEY;
          if (json.strEnd > json.strStart) {
            this.labelStart[label] = json.strStart;
            this.labelEnd[label] = json.strEnd;
            this.labelEscaped[label] = json.strEscaped;
            this.labelAscii[label] = json.strAscii;
            this.labelHash[label] = json.strHash;
          }
        }
      }
    } while (json.more(CLOSE_BRACE));
    if (this.eventLength < 0) throw JSON_FALLBACK;
    this.writeRow();
  }

  /** The `fields` object: its entries noted in order. */
  private fields(): void {
    const json = this.json;
    const src = this.src;
    json.expect(OPEN_BRACE);
    json.whitespace();
    if (json.peek() === CLOSE_BRACE) {
      json.pos++;
      return;
    }
    const shape = this.predictedState === null ? null : this.predictedState.shape;
    do {
      json.whitespace();
      if (json.peek() !== QUOTE) throw JSON_FALLBACK;
      const j = this.entries;
      // With room for the top-level labels: an event over the field limit is refused by the general path.
      if (j === MAX_FIELDS_PER_EVENT - APPENDED_LABELS.length) throw JSON_FALLBACK;
      // The name the previous row had here (checked when first met) is matched by its bytes.
      const expected = shape === null ? undefined : shape[j];
      if (expected !== undefined && json.matchesKey(expected.nameBytes)) {
        this.predicted[j] = expected;
      } else {
        json.string();
        const first = src[json.strStart];
        // A name JS objects would put first (an integer key), or one written with escapes.
        if (json.strEscaped || (first >= 48 && first <= 57)) throw JSON_FALLBACK;
        this.predicted[j] = null;
      }
      this.nameStart[j] = json.strStart;
      this.nameEnd[j] = json.strEnd;
      json.whitespace();
      json.expect(COLON);
      json.whitespace();
      const c = json.peek();
      if (c === QUOTE) {
        json.string();
        this.kind[j] = STRING;
        this.valueStart[j] = json.strStart;
        this.valueEnd[j] = json.strEnd;
        this.valueEscaped[j] = json.strEscaped ? 1 : 0;
        this.valueAscii[j] = json.strAscii ? 1 : 0;
        this.valueHash[j] = json.strHash;
      } else if (c === 116) {
        json.literal('true');
        this.kind[j] = TRUE;
      } else if (c === 102) {
        json.literal('false');
        this.kind[j] = FALSE;
      } else if (c === 110) {
        json.literal('null');
        this.kind[j] = NULL;
      } else if (c === 45 || (c >= 48 && c <= 57)) {
        const v = json.number();
        // A non-finite number (1e999) refuses its event: the general path says why.
        if (v - v !== 0) throw JSON_FALLBACK;
        this.kind[j] = NUMBER;
        this.numbers[j] = v;
      } else {
        throw JSON_FALLBACK; // nested objects and arrays are flattened by the general path
      }
      this.entries = j + 1;
    } while (json.more(CLOSE_BRACE));
  }

  /** Text of a string read earlier. */
  private text(start: number, end: number, escaped: boolean): string {
    if (!escaped) return this.src.toString('utf8', start, end);
    return scratch.toString('utf8', 0, this.unescaped(start, end));
  }

  /** Unescapes a string read earlier into `scratch`; returns its length. */
  private unescaped(start: number, end: number): number {
    if (scratch.length < end - start) scratch = Buffer.allocUnsafe(Math.max(end - start, scratch.length * 2));
    return this.json.unescapeInto(start, end, scratch, 0);
  }

  private indexName(): string {
    if (this.indexStart < 0) return DEFAULT_INDEX;
    const known = this.lastIndexBytes;
    const length = this.indexEnd - this.indexStart;
    if (known !== null && known.length === length && !this.indexEscaped) {
      let same = true;
      for (let k = 0; k < length && same; k++) same = known[k] === this.src[this.indexStart + k];
      if (same) return this.lastIndex;
    }
    const name = this.text(this.indexStart, this.indexEnd, this.indexEscaped);
    if (!isValidIndexName(name)) throw JSON_FALLBACK;
    if (!this.indexEscaped) {
      this.lastIndexBytes = Buffer.from(this.src.subarray(this.indexStart, this.indexEnd));
      this.lastIndex = name;
    }
    return name;
  }

  /** The chunk of an event's key, picked as chunkEvents picks it (request-placement.ts). */
  private chunkFor(index: string, time: number): ChunkState {
    const partition = this.pairs === null ? 0 : this.nextPartition(this.pairs);
    this.rowsPlaced++;
    return this.chunks.chunkFor(index, time, partition);
  }

  /**
   * The rows a new chunk is sized for: the body's share of a partition while the request has no
   * more chunks than partitions (one bucket), else about what its chunks have held so far. A body
   * spread over many buckets makes a chunk per key, most of a few rows: sizing each for the body
   * allocated and zeroed megabytes per key, most of a spread request's parse.
   */
  private newChunkRows(): number {
    const chunks = this.chunks.size;
    if (chunks < this.placement.partitions) return this.rowsHint;
    return Math.max(4, Math.min(this.rowsHint, Math.ceil((2 * this.rowsPlaced) / chunks)));
  }

  /**
   * The element's partition: its (host, source) pair's home, spilled as request-placement.ts says.
   * The pair is found by its text's bytes (host, a 0 byte, source: the UTF-8 of pairText).
   */
  private nextPartition(pairs: ByteDictionary): number {
    let length = this.appendLabel(HOST, 0);
    pairBytes[length++] = 0;
    length = this.appendLabel(SOURCE, length);
    const code = pairs.codeOf(pairBytes, 0, length, true, hashBytes(pairBytes, 0, length));
    if (code === this.spill.pairCount) this.spill.addPair(pairBytes.toString('utf8', 0, length));
    return this.spill.next(code);
  }

  /**
   * Appends a label's text, as the general path's event holds it, to `pairBytes` at `at`; returns
   * its end. A top-level label wins; else the `fields` entry of that name when it holds a string (one
   * that holds another kind sends the body to the general path when the row is written).
   */
  private appendLabel(label: number, at: number): number {
    let start = this.labelStart[label];
    let end = this.labelEnd[label];
    let escaped = this.labelEscaped[label];
    if (start < 0) {
      const name = KEY_TEXT[LABEL_KEY + label];
      const src = this.src;
      for (let j = 0; j < this.entries; j++) {
        if (this.kind[j] !== STRING || this.nameEnd[j] - this.nameStart[j] !== name.length) continue;
        let k = 0;
        while (k < name.length && src[this.nameStart[j] + k] === name[k]) k++;
        if (k < name.length) continue;
        start = this.valueStart[j];
        end = this.valueEnd[j];
        escaped = this.valueEscaped[j] === 1;
      }
      if (start < 0) return at;
    }
    if (pairBytes.length < at + (end - start) + 1) {
      const grown = Buffer.allocUnsafe(Math.max(2 * pairBytes.length, at + (end - start) + 1));
      pairBytes.copy(grown, 0, 0, at);
      pairBytes = grown;
    }
    let from: Buffer = this.src;
    if (escaped) {
      end = this.unescaped(start, end);
      start = 0;
      from = scratch;
    }
    // Labels are short: a loop beats a native copy.
    for (let i = start; i < end; i++) pairBytes[at++] = from[i];
    return at;
  }

  /**
   * The slot of entry j's name in a chunk other than the predicted one, found by the code of the
   * name that matched the prediction's bytes (no second comparison, no hashing); null when the name
   * did not match or the chunk has no slot of it yet.
   */
  private slotByMatch(state: ChunkState, j: number): NameSlot | null {
    const matched = this.predicted[j];
    if (matched === null || matched === undefined) return null;
    const slot = state.slots[matched.code];
    if (slot === undefined) return null;
    state.shape[j] = slot;
    return slot;
  }

  /** The slot of entry j's name in the chunk. */
  private slot(state: ChunkState, j: number): NameSlot {
    const src = this.src;
    const start = this.nameStart[j];
    const end = this.nameEnd[j];
    const known = state.shape[j];
    if (known !== undefined && known.nameBytes.length === end - start) {
      const bytes = known.nameBytes;
      let k = 0;
      while (start + k < end && bytes[k] === src[start + k]) k++;
      if (start + k === end) return known;
    }
    const code = this.names.codeOf(src, start, end, true, hashBytes(src, start, end));
    let slot = state.slots[code];
    if (slot === undefined) {
      let known = this.nameSlots[code];
      if (known === undefined) {
        const name = src.toString('utf8', start, end);
        const skip = !isStorableFieldName(name);
        known = { nameBytes: Buffer.from(src.subarray(start, end)), name, code, skip, label: skip ? 0 : labelOf(name), field: null };
        this.nameSlots[code] = known;
      }
      slot = { nameBytes: known.nameBytes, name: known.name, code, skip: known.skip, label: known.label, field: null };
      state.slots[code] = slot;
    }
    state.shape[j] = slot;
    return slot;
  }

  /** Adds a string value read earlier (unescaped and rehashed first when it has escapes). */
  private addString(
    field: ByteFieldBuilder,
    row: number,
    start: number,
    end: number,
    escaped: boolean,
    ascii: boolean,
    hash: number,
  ): void {
    if (!escaped) {
      field.addString(row, this.src, start, end, ascii, hash);
      return;
    }
    const length = this.unescaped(start, end);
    field.addString(row, scratch, 0, length, ascii, hashBytes(scratch, 0, length));
  }

  private writeRow(): void {
    let time = this.now;
    if (this.hasTime) {
      time = secondsToMicros(this.time);
      // NaN fails both tests too: the general path refuses the element.
      if (!(time >= this.oldest && time <= this.newest)) throw JSON_FALLBACK;
    }
    const state = this.chunkFor(this.indexName(), time);
    const builder = state.builder;
    const row = builder.addRow(time);
    const raws = builder.raws;
    if (this.eventIn === state) raws.commit(this.eventLength, this.eventAscii);
    else if (this.eventIn === null) raws.push(eventText, 0, this.eventLength, this.eventAscii);
    else {
      // Read into another chunk's list (the key changed): the text sits after its last string.
      const other = this.eventIn.builder.raws;
      raws.push(other.reserve(0), other.writeOffset, other.writeOffset + this.eventLength, this.eventAscii);
    }
    // Top-level labels that replaced a `fields` value in place (the others go after the fields).
    let replaced = 0;
    let nulls = 0;
    const predicted = state === this.predictedState;
    for (let j = 0; j < this.entries; j++) {
      const slot = (predicted ? this.predicted[j] : this.slotByMatch(state, j)) ?? this.slot(state, j);
      const kind = this.kind[j];
      if (slot.skip) {
        // An empty or reserved name refuses its event: the general path says why.
        if (kind !== NULL) throw JSON_FALLBACK;
        continue;
      }
      if (kind === NULL) {
        nulls++;
        continue;
      }
      const field = slot.field ?? (slot.field = builder.field(slot.name));
      if (field.lastRow === row) throw JSON_FALLBACK; // a duplicate key
      const label = slot.label;
      if (label !== 0 && label !== LEVEL && this.labelStart[label] >= 0) {
        replaced |= 1 << label;
        this.addString(
          field,
          row,
          this.labelStart[label],
          this.labelEnd[label],
          this.labelEscaped[label],
          this.labelAscii[label],
          this.labelHash[label],
        );
      } else if (kind === STRING) {
        this.addString(
          field,
          row,
          this.valueStart[j],
          this.valueEnd[j],
          this.valueEscaped[j] === 1,
          this.valueAscii[j] === 1,
          this.valueHash[j],
        );
      } else if (label !== 0) {
        throw JSON_FALLBACK; // a label given as a number or boolean is stored as its text there
      } else if (kind === NUMBER) {
        field.addNumber(row, this.numbers[j]);
      } else {
        field.addBoolean(row, kind === TRUE);
      }
    }
    // A null under a name that also has a value in this row is a duplicate key, which JSON.parse
    // reads as its last value in its first place: leave it to the general path.
    for (let j = 0; nulls > 0 && j < this.entries; j++) {
      if (this.kind[j] !== NULL) continue;
      nulls--;
      const slot = state.shape[j];
      const field = slot.skip ? undefined : (slot.field ?? builder.existingField(slot.name));
      if (field !== undefined && field.lastRow === row) throw JSON_FALLBACK;
    }
    for (const label of APPENDED_LABELS) {
      if (this.labelStart[label] < 0 || (replaced & (1 << label)) !== 0) continue;
      const field = state.labels[label] ?? (state.labels[label] = builder.field(LABEL_NAMES[label]));
      this.addString(
        field,
        row,
        this.labelStart[label],
        this.labelEnd[label],
        this.labelEscaped[label],
        this.labelAscii[label],
        this.labelHash[label],
      );
    }
  }
}

/**
 * The chunks of a native body when the fast path takes it (every element accepted), else null:
 * the caller then runs parseNativeBatch, which gives the same chunks or the request's error.
 * The chunks' arrays are views of the scan's buffers: encode them into a chunk record (which
 * copies them) rather than keep them.
 */
export function scanNativeBatch(body: Buffer, ctx: IngestContext, placement: Placement): EventChunk[] | null {
  if (!isAscii(body) && !isUtf8(body)) return null;
  try {
    return new NativeScanner(body, receivedAt(ctx), ctx.oldestMicros, ctx.newestMicros, placement).run();
  } catch (error) {
    if (error === JSON_FALLBACK) return null;
    throw error;
  }
}
