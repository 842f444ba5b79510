/**
 * The query editor: CodeMirror 6 with the language's highlighting, Ctrl/Cmd+Enter to run, and the
 * server's parse error marked where it points (line and column, 1-based) with its suggestion.
 */
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { type Diagnostic, lintGutter, setDiagnostics } from '@codemirror/lint';
import { EditorState, Prec } from '@codemirror/state';
import { EditorView, keymap, placeholder } from '@codemirror/view';
import { useEffect, useRef } from 'preact/hooks';
import { queryHighlighting, queryLanguage } from './query-language';

export interface ParseError {
  message: string;
  line: number;
  column: number;
  suggestion: string;
}

interface Props {
  /**
   * The text set from outside (the query of the address): the editor shows it when it changes.
   * What the person types goes to onChange only; feeding it back here would race the keystrokes.
   */
  value: string;
  onChange: (value: string) => void;
  /** Ctrl/Cmd+Enter, with the editor's text. */
  onRun: (text: string) => void;
  error?: ParseError | null;
  label?: string;
}

/** The span a parse error marks: from its column to the end of the word there (at least one character). */
export function errorSpan(doc: EditorState['doc'], line: number, column: number): { from: number; to: number } {
  const target = doc.line(Math.min(Math.max(line, 1), doc.lines));
  const from = Math.min(target.from + Math.max(column - 1, 0), target.to);
  const rest = doc.sliceString(from, target.to);
  const word = /^[^\s|]*/.exec(rest)?.[0].length ?? 0;
  const to = Math.max(from + Math.max(word, 1), from);
  return { from: Math.min(from, doc.length), to: Math.min(to, doc.length) };
}

export function QueryEditor({ value, onChange, onRun, error = null, label = 'Query' }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  // The latest callbacks, read by the editor's handlers made once.
  const handlers = useRef({ onChange, onRun });
  handlers.current = { onChange, onRun };

  useEffect(() => {
    const editor = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: value,
        extensions: [
          history(),
          Prec.highest(keymap.of([{ key: 'Mod-Enter', run: (editor) => (handlers.current.onRun(editor.state.doc.toString()), true) }])),
          keymap.of([...defaultKeymap, ...historyKeymap]),
          queryLanguage,
          queryHighlighting,
          lintGutter(),
          placeholder('from * | where level = "error"'),
          EditorView.lineWrapping,
          EditorView.contentAttributes.of({ 'aria-label': label }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) handlers.current.onChange(update.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = editor;
    return () => editor.destroy();
  }, []);

  // A query set from outside: a saved query opened, a `where` added, the address changed.
  useEffect(() => {
    const editor = view.current;
    if (editor === null || editor.state.doc.toString() === value) return;
    editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } });
  }, [value]);

  useEffect(() => {
    const editor = view.current;
    if (editor === null) return;
    const diagnostics: Diagnostic[] = [];
    if (error !== null) {
      const span = errorSpan(editor.state.doc, error.line, error.column);
      const hint = error.suggestion === '' ? '' : ` (suggestion: ${error.suggestion})`;
      diagnostics.push({ ...span, severity: 'error', message: `${error.message}${hint}` });
    }
    editor.dispatch(setDiagnostics(editor.state, diagnostics));
  }, [error]);

  return <div class="query-editor" ref={host} data-testid="query-editor" />;
}
