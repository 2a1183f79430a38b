/**
 * Whether a line an agent sent to the shell is no command at all: blank, only comments, or prose a
 * model wrote where its command was due (InterCode's GPT-4 runs end with `Great! If you have any
 * more questions…`, which the harness ran as a command). A shell line rarely starts with a
 * capitalized plain word (programs are lower case), and never reads as a sentence, so a line is
 * prose when each of its lines starts with such a word that either ends in punctuation
 * (`Great!`, `Sure,`) or opens a run of mostly plain words (`Thank you! If you…`): `Rscript -e …`
 * or `R --version` are commands.
 */
export function isNotACommand(line: string): boolean {
  const lines = line.split('\n').filter((text) => text.trim() !== '');
  if (lines.every((text) => text.trim().startsWith('#'))) return true;
  return lines.every(isProse);
}

/** A word of a sentence: letters, an apostrophe's contraction, trailing punctuation. */
const PLAIN = /^[A-Za-z][a-z]*(?:['’][a-z]+)?[!,.:;?]*$/;
const CAPITALIZED = /^[A-Z][a-z]*(?:['’][a-z]+)?([!,.:;?]*)$/;

function isProse(text: string): boolean {
  const words = text.trim().split(/\s+/);
  const first = CAPITALIZED.exec(words[0] ?? '');
  if (first === null) return false;
  if (first[1] !== '') return true;
  const plain = words.filter((word) => PLAIN.test(word)).length;
  return words.length >= 3 && plain >= 0.75 * words.length;
}
