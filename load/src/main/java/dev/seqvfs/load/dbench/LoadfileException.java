package dev.seqvfs.load.dbench;

/**
 * A loadfile that cannot be replayed: missing, unreadable, or with a malformed line (the message
 * then names the line number and quotes its text: {@code line 9: why: text}). The message does not
 * name the file: the command line prints it after the option, {@code --loadfile PATH: MESSAGE}.
 */
public final class LoadfileException extends Exception {
    private static final long serialVersionUID = 1L;

    private final int line;

    /** A problem with the file as a whole. */
    public LoadfileException(String message) {
        super(message);
        this.line = 0;
    }

    /** The most characters of a line the message quotes (escapes included). */
    static final int EXCERPT_CHARS = 80;

    /**
     * A malformed line. The message quotes the line once, as an {@link #excerpt}; when the line
     * holds bytes that are not printable text (a binary file), {@code why}, which may quote a token
     * of it, is replaced by "not a text line".
     */
    public LoadfileException(int line, String text, String why) {
        super(
                "line "
                        + line
                        + ": "
                        + (printable(text) ? excerpt(why) : "not a text line (binary data?)")
                        + ": "
                        + excerpt(text));
        this.line = line;
    }

    private static boolean printable(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if ((c < 0x20 && c != '\t') || (c >= 0x7f && c < 0xa0) || c == '\ufffd') {
                return false;
            }
        }
        return true;
    }

    /**
     * Returns {@code s} safe for a terminal and short: control characters (C0, DEL, C1) as {@code
     * \xNN}, an undecodable byte (U+FFFD) as {@code \x??}, a backslash as is; cut to {@link
     * #EXCERPT_CHARS} characters with "..." when longer.
     */
    static String excerpt(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            String piece;
            if (c < 0x20 || (c >= 0x7f && c < 0xa0)) {
                piece = String.format("\\x%02x", (int) c);
            } else if (c == '\ufffd') {
                piece = "\\x??";
            } else if (Character.isSurrogate(c) || Character.getType(c) == Character.FORMAT) {
                piece = String.format("\\u%04x", (int) c);
            } else {
                piece = String.valueOf(c);
            }
            if (b.length() + piece.length() > EXCERPT_CHARS) {
                b.append("...");
                break;
            }
            b.append(piece);
        }
        return b.toString();
    }

    /** Returns the 1-based line number, or 0 for a problem with the whole file. */
    public int line() {
        return line;
    }
}
