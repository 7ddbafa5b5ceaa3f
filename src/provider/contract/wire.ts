/** Pulumi's marker key of a secret value (on the wire and in a checkpoint): the engine reads state with it. */
export const SIG_KEY = "4dabf18193072939515e22adb298388d";
