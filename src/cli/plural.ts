/** "1 file", "2 files"; `many` for the words whose plural is not word + "s" ("pushes"). */
export const plural = (n: number, word: string, many = `${word}s`): string => `${n} ${n === 1 ? word : many}`;
