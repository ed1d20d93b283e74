/** The synthetic text of the user message a `!cmd` stores (shell.ts); resume.ts recognises such a turn by it. */
export const SHELL_NOTE = "The following tool was executed by the user"
