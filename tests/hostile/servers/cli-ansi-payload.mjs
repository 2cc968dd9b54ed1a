// What the hostile ANSI server puts in every text it controls: OSC 52 (writes the
// clipboard), OSC 0 (sets the window title), ESC[2J (clears the screen), a bare CR
// (overwrites the line), a C1 CSI and a right-to-left override.
export const PAYLOAD =
  '\x1b]52;c;cHduZWQ=\x07\x1b]0;pwned-title\x07\x1b[2J\rOVERWRITTEN\x9b31m\u202eLIAME';
