package dev.seqvfs.load.dbench;

import java.util.Arrays;
import java.util.Objects;

/**
 * One operation line of a loadfile, parsed.
 *
 * @param line the 1-based line number in the loadfile
 * @param type the operation
 * @param path the first path argument, or {@code null}
 * @param path2 the second path argument ({@code Rename}'s target), or {@code null}
 * @param args the numeric arguments, as dbench's {@code params[]} (see {@link OpType})
 * @param expected the status the capture recorded ({@code NT_STATUS_OK}, ...)
 */
@SuppressWarnings("ArrayRecordComponent") // equals and toString below use args by content
public record LoadOp(
        int line, OpType type, LoadPath path, LoadPath path2, long[] args, NtStatus expected) {
    /** Returns numeric argument {@code i}. */
    public long arg(int i) {
        return args[i];
    }

    /** Returns the line as the loadfile would spell it (for messages). */
    public String text() {
        StringBuilder sb = new StringBuilder(type.loadfileName());
        if (path != null) {
            sb.append(" \"").append(path.loadfileForm()).append('"');
        }
        if (path2 != null) {
            sb.append(" \"").append(path2.loadfileForm()).append('"');
        }
        for (int i = 0; i < args.length; i++) {
            sb.append(' ');
            if ((type == OpType.NT_CREATE_X && i < 2) || type == OpType.UNLINK) {
                // create options, disposition and attributes are flags: dbench's files spell them
                // in hex
                sb.append("0x").append(Long.toHexString(args[i]));
            } else {
                sb.append(args[i]);
            }
        }
        return sb.append(' ').append(expected.name()).toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LoadOp x
                && x.line == line
                && x.type == type
                && Objects.equals(x.path, path)
                && Objects.equals(x.path2, path2)
                && Arrays.equals(x.args, args)
                && x.expected.equals(expected);
    }

    @Override
    public int hashCode() {
        return line * 31 + type.hashCode();
    }

    @Override
    public String toString() {
        return "line " + line + ": " + text();
    }
}
