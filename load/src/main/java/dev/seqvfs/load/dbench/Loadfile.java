package dev.seqvfs.load.dbench;

import dev.seqvfs.load.OutputFiles;
import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;

/**
 * A parsed dbench client loadfile ({@code client.txt}): its operation lines, in order.
 *
 * <p>Format, as dbench 4's {@code child.c} reads it: one operation per line, {@code Name args...
 * STATUS}; tokens are separated by blanks, a token in double quotes may hold blanks; numbers are C
 * literals ({@code strtoll(s, NULL, 0)}: {@code 0x} hex, a leading {@code 0} octal); the status is
 * the last token ({@code NT_STATUS_...} or {@code 0x...}). A line of fewer than two tokens, or
 * whose first token starts with {@code #}, is skipped; a leading number (the time stamp of timed
 * loadfiles) is ignored, because this replay runs every line as fast as it can. The file may be
 * gzip-compressed.
 *
 * <p>Refused, with the line number and text: unknown operations, a wrong number of arguments, a bad
 * number or status, and the directives of dbench's other backends ({@code LOOP}, {@code REPEAT},
 * {@code SLEEP}, random {@code *}/{@code +} arguments...) which a local-file replay does not use.
 *
 * <p>Immutable once parsed; the operation list is shared by every client.
 */
public final class Loadfile {
    /** Where Debian's {@code dbench} package installs the standard loadfile. */
    public static final Path DEFAULT = Path.of("/usr/share/dbench/client.txt");

    private final Path source;
    private final List<LoadOp> ops;

    private Loadfile(Path source, List<LoadOp> ops) {
        this.source = source;
        this.ops = Collections.unmodifiableList(ops);
    }

    /**
     * Reads and parses a loadfile.
     *
     * @throws LoadfileException when the file is missing (with how to get the standard one), cannot
     *     be read, or a line is malformed (with its number and text); the message does not name the
     *     file, which the caller does ({@code --loadfile PATH: MESSAGE})
     */
    public static Loadfile read(Path file) throws LoadfileException {
        try (InputStream raw = Files.newInputStream(file)) {
            BufferedInputStream in = new BufferedInputStream(raw, 1 << 16);
            in.mark(2);
            int b0 = in.read();
            int b1 = in.read();
            in.reset();
            InputStream body = b0 == 0x1f && b1 == 0x8b ? new GZIPInputStream(in, 1 << 16) : in;
            return parse(file, new InputStreamReader(body, StandardCharsets.UTF_8));
        } catch (NoSuchFileException e) {
            throw new LoadfileException(missingMessage(file));
        } catch (IOException e) {
            throw new LoadfileException("cannot read: " + OutputFiles.reason(e));
        }
    }

    /** Parses loadfile text (tests). */
    public static Loadfile parse(String text) throws LoadfileException {
        try {
            return parse(Path.of("<text>"), new StringReader(text));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The message for a missing loadfile, without its path: for the standard one, where it comes
     * from.
     */
    static String missingMessage(Path file) {
        String s = "does not exist";
        if (file.equals(DEFAULT)) {
            s +=
                    " (it comes with Debian's dbench package: apt-get install dbench, as root; run as root,"
                            + " seqvfs load dbench installs it itself; or pass another one with --loadfile PATH)";
        }
        return s;
    }

    private static Loadfile parse(Path source, Reader reader)
            throws IOException, LoadfileException {
        BufferedReader r = new BufferedReader(reader, 1 << 16);
        List<LoadOp> ops = new ArrayList<>();
        Map<String, LoadPath> paths = new HashMap<>();
        List<String> tokens = new ArrayList<>(8);
        String line;
        int n = 0;
        while ((line = r.readLine()) != null) {
            n++;
            LoadOp op = parseLine(n, line, tokens, paths);
            if (op != null) {
                ops.add(op);
            }
        }
        return new Loadfile(source, ops);
    }

    /**
     * Parses one line; returns {@code null} for a line dbench skips.
     *
     * @param paths de-duplicates path arguments across lines (a loadfile names the same few
     *     thousand paths hundreds of thousands of times)
     */
    static LoadOp parseLine(int n, String line, List<String> tokens, Map<String, LoadPath> paths)
            throws LoadfileException {
        tokens.clear();
        tokenize(n, line, tokens);
        if (tokens.size() < 2 || tokens.get(0).startsWith("#")) {
            return null;
        }
        int first = 0;
        if (Character.isDigit(tokens.get(0).charAt(0))) {
            first = 1; // the time stamp of a timed loadfile: this replay is timing-free
        }
        String name = tokens.get(first);
        OpType type = OpType.byLoadfileName(name);
        if (type == null) {
            String why =
                    isDirective(name)
                            ? "the " + name + " directive is not supported by this replay"
                            : "unknown operation '" + name + "'";
            throw new LoadfileException(n, line, why);
        }
        int want = 1 + type.paths() + type.numbers() + 1;
        int have = tokens.size() - first;
        if (have != want) {
            throw new LoadfileException(
                    n,
                    line,
                    type.loadfileName()
                            + " takes "
                            + type.paths()
                            + " path(s) and "
                            + type.numbers()
                            + " number(s) before the status; the line has "
                            + (have - 2)
                            + " argument(s)");
        }
        NtStatus status;
        try {
            status = NtStatus.parse(tokens.get(tokens.size() - 1));
        } catch (IllegalArgumentException e) {
            throw new LoadfileException(n, line, "badly formed status: " + e.getMessage());
        }
        int i = first + 1;
        LoadPath p1 = null;
        LoadPath p2 = null;
        if (type.paths() >= 1) {
            p1 = path(n, line, tokens.get(i++), paths);
        }
        if (type.paths() >= 2) {
            p2 = path(n, line, tokens.get(i++), paths);
        }
        long[] args = new long[type.numbers()];
        for (int k = 0; k < args.length; k++) {
            args[k] = number(n, line, tokens.get(i++));
        }
        checkRanges(n, line, type, args);
        return new LoadOp(n, type, p1, p2, args, status);
    }

    private static boolean isDirective(String name) {
        switch (name) {
            case "LOOP":
            case "ENDLOOP":
            case "REPEAT":
            case "SLEEP":
            case "SETSP":
            case "WAITSP":
            case "WRITEPATTERN":
            case "RANDOMSTRING":
                return true;
            default:
                return false;
        }
    }

    private static LoadPath path(int n, String line, String token, Map<String, LoadPath> paths)
            throws LoadfileException {
        if (!token.startsWith("\\") && !token.startsWith("/")) {
            throw new LoadfileException(n, line, "path '" + token + "' does not start with \\");
        }
        if (token.indexOf('\0') >= 0) {
            throw new LoadfileException(n, line, "path holds a NUL byte");
        }
        return paths.computeIfAbsent(token, LoadPath::of);
    }

    private static long number(int n, String line, String token) throws LoadfileException {
        if (token.startsWith("*") || token.startsWith("+")) {
            throw new LoadfileException(
                    n,
                    line,
                    "random or relative argument '"
                            + token
                            + "' (dbench's block-device loadfiles) is not supported by this replay");
        }
        try {
            if (token.startsWith("0x") || token.startsWith("0X")) {
                return Long.parseLong(token.substring(2), 16);
            }
            if (token.length() > 1 && token.startsWith("0")) {
                return Long.parseLong(token.substring(1), 8);
            }
            return Long.parseLong(token);
        } catch (NumberFormatException e) {
            throw new LoadfileException(n, line, "'" + token + "' is not a number");
        }
    }

    private static void checkRanges(int n, String line, OpType type, long[] a)
            throws LoadfileException {
        switch (type) {
            case READ_X:
            case WRITE_X:
                if (a[1] < 0 || a[2] < 0 || a[3] < 0 || a[2] > MAX_IO) {
                    throw new LoadfileException(
                            n,
                            line,
                            "offset and sizes must be non-negative, size at most "
                                    + MAX_IO
                                    + " bytes");
                }
                break;
            case LOCK_X:
            case UNLOCK_X:
                if (a[1] < 0 || a[2] < 0) {
                    throw new LoadfileException(
                            n, line, "lock offset and size must be non-negative");
                }
                break;
            case FIND_FIRST:
                if (a[1] < 0) {
                    throw new LoadfileException(n, line, "max count must be non-negative");
                }
                break;
            default:
                break;
        }
    }

    /**
     * The largest ReadX/WriteX size accepted, in bytes (SMB's large reads and writes stay below 16
     * MiB).
     */
    public static final int MAX_IO = 16 << 20;

    /** Splits on blanks; a double-quoted token may hold blanks (dbench's {@code next_token}). */
    private static void tokenize(int n, String line, List<String> out) throws LoadfileException {
        int i = 0;
        int len = line.length();
        while (i < len) {
            char c = line.charAt(i);
            if (c == ' ' || c == '\t' || c == '\r') {
                i++;
                continue;
            }
            if (c == '"') {
                int end = line.indexOf('"', i + 1);
                if (end < 0) {
                    throw new LoadfileException(n, line, "unterminated quote");
                }
                out.add(line.substring(i + 1, end));
                i = end + 1;
            } else {
                int start = i;
                while (i < len
                        && line.charAt(i) != ' '
                        && line.charAt(i) != '\t'
                        && line.charAt(i) != '\r') {
                    i++;
                }
                out.add(line.substring(start, i));
            }
        }
    }

    /** Returns the file it was read from. */
    public Path source() {
        return source;
    }

    /** Returns the operation lines, in file order. */
    public List<LoadOp> ops() {
        return ops;
    }

    /** Returns the first {@code n} operation lines (or all). */
    public Loadfile head(int n) {
        return new Loadfile(source, new ArrayList<>(ops.subList(0, Math.min(n, ops.size()))));
    }

    /** Returns how many lines of each operation the file holds. */
    public Map<OpType, Integer> counts() {
        Map<OpType, Integer> m = new EnumMap<>(OpType.class);
        for (LoadOp op : ops) {
            m.merge(op.type(), 1, Integer::sum);
        }
        return m;
    }
}
