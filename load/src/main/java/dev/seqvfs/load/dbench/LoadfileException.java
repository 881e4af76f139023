package dev.seqvfs.load.dbench;

/**
 * A loadfile that cannot be replayed: missing, unreadable, or with a malformed line (the
 * message then names the line number and quotes its text).
 */
public final class LoadfileException extends Exception {
    private static final long serialVersionUID = 1L;

    private final int line;

    /** A problem with the file as a whole. */
    public LoadfileException(String message) {
        super(message);
        this.line = 0;
    }

    /** A malformed line. */
    public LoadfileException(int line, String text, String why) {
        super("loadfile line " + line + ": " + why + ": " + text);
        this.line = line;
    }

    /** Returns the 1-based line number, or 0 for a problem with the whole file. */
    public int line() {
        return line;
    }
}
