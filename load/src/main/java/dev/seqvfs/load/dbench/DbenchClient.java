package dev.seqvfs.load.dbench;

import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.VfsException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

/**
 * One dbench client's replay logic: runs a loadfile line on a {@link ClientFs} the way dbench's
 * local-file backend ({@code fileio.c}) runs it, and says which NT status the line ended with.
 * Drives nothing itself: the caller (an actor for SeqVFS, a thread for the host) asks for one line
 * at a time and waits for the returned stage.
 *
 * <p>Mapping, per operation (dbench's behaviour, then what this replay adds):
 *
 * <ul>
 *   <li>Every path operation starts with dbench's {@code resolve_name()} (it simulates a
 *       case-insensitive server): {@code stat}; when that fails, list the parent directory and
 *       compare each name ignoring case. The listing also tells whether the parent is a directory,
 *       which decides {@code OBJECT_NAME_NOT_FOUND} versus {@code OBJECT_PATH_NOT_FOUND} (see
 *       {@link NtStatus#fromErrno}).
 *   <li>NTCreateX: {@code O_RDWR}; disposition FILE_CREATE (2) adds {@code O_CREAT}, FILE_OVERWRITE
 *       (4) and FILE_OVERWRITE_IF (5) add {@code O_CREAT|O_TRUNC}, FILE_OPEN (1) and FILE_OPEN_IF
 *       (3) add nothing (as dbench); create option 0x1 (FILE_DIRECTORY_FILE) makes the directory
 *       first ({@code mkdir 0700}, its failure ignored) and opens it {@code O_RDONLY|O_DIRECTORY};
 *       an open that fails with {@code EISDIR} is retried as a directory open; files are created
 *       0600. On success the handle number is remembered with the name, and the file is {@code
 *       fstat}ed. An open that succeeds where the capture failed is closed again.
 *   <li>Close, Flush ({@code fsync}), QUERY_FILE_INFORMATION ({@code fstat}), LockX / UnlockX
 *       ({@code F_SETLK} write lock / unlock): on the remembered handle; a handle that is not open
 *       is {@code NT_STATUS_INVALID_HANDLE}.
 *   <li>ReadX / WriteX: {@code pread} / {@code pwrite} of {@code size} bytes at {@code offset}; a
 *       count other than the captured one is a mismatch. Both count {@code size} bytes, as dbench
 *       does.
 *   <li>Rename, Unlink, Rmdir: the call's status. Mkdir: {@code mkdir 0777}; dbench ignores its
 *       result, this replay only forgives {@code EEXIST} on a directory (the shared {@code
 *       \clients} and every later pass over the file find it made).
 *   <li>Deltree: removes the tree and the directory itself, as SMB's deltree does (dbench empties
 *       the directories and leaves them; then the second pass over the file would find directories
 *       the capture had not made yet). A missing tree is fine.
 *   <li>QUERY_PATH_INFORMATION: the status of {@code resolve_name}'s {@code stat}.
 *       QUERY_FS_INFORMATION: {@code statfs} of the replay's base directory. SET_FILE_INFORMATION:
 *       {@code fstat}, then {@code utime} of the remembered name to atime - 10 s and mtime - 12 s.
 *   <li>FIND_FIRST: a pattern with a wildcard lists its directory and matches each name ({@link
 *       Wildcard}, "." and ".." included, as an SMB search does): a match is {@code NT_STATUS_OK},
 *       none {@code NT_STATUS_NO_SUCH_FILE}, a missing directory {@code
 *       NT_STATUS_OBJECT_PATH_NOT_FOUND}; and the number of matches (at most the line's max-count)
 *       must be the count the capture recorded, which dbench ignores (on Debian's {@code
 *       client.txt} it agrees on every line, on the host as on SeqVFS). A pattern without a
 *       wildcard is a lookup.
 * </ul>
 *
 * <p>Not thread-safe: one caller at a time, one line at a time.
 *
 * @param <H> the file-system's open-file type
 */
public final class DbenchClient<H> {
    /** NTCreateX create option: the target is a directory. */
    static final long FILE_DIRECTORY_FILE = 0x1;

    /** NTCreateX disposition: open an existing file. */
    static final long FILE_OPEN = 1;

    /** NTCreateX disposition: create a new file. */
    static final long FILE_CREATE = 2;

    /** NTCreateX disposition: open, or create. */
    static final long FILE_OPEN_IF = 3;

    /** NTCreateX disposition: truncate an existing file. */
    static final long FILE_OVERWRITE = 4;

    /** NTCreateX disposition: truncate, or create. */
    static final long FILE_OVERWRITE_IF = 5;

    private static final long SEC = 1_000_000_000L;
    private static final CompletableFuture<Outcome> OK =
            CompletableFuture.completedFuture(Outcome.OK);
    private static final CompletableFuture<NtStatus> OK_STATUS =
            CompletableFuture.completedFuture(NtStatus.OK);

    /**
     * How a line ended.
     *
     * @param status the NT status of the call
     * @param detail what else differed from the capture (a short read), or {@code null}
     */
    public record Outcome(NtStatus status, String detail) {
        /** Success, nothing else to say. */
        public static final Outcome OK = new Outcome(NtStatus.OK, null);

        /** Returns whether this is what {@code op} expected. */
        public boolean matches(LoadOp op) {
            return detail == null && status.equals(op.expected());
        }
    }

    /**
     * What {@code resolve_name} found: the file's attributes or its errno, and whether the parent
     * is a directory.
     */
    private record Resolved(ClientFs.FileInfo info, Errno errno, boolean parentIsDirectory) {
        NtStatus status() {
            return info != null ? NtStatus.OK : NtStatus.fromErrno(errno, parentIsDirectory);
        }
    }

    /** An open handle: the file and the name it was opened by. */
    private record Open<H>(H file, String path) {}

    private final ClientFs<H> fs;
    private final String base;
    private final String clientDir;

    /**
     * Open handles by number: SMB1 file ids are 16-bit, so an array; larger numbers go to {@link
     * #bigHandles}.
     */
    @SuppressWarnings("unchecked")
    private final Open<H>[] handles = (Open<H>[]) new Open<?>[1 << 16];

    private final Map<Long, Open<H>> bigHandles = new HashMap<>();
    private int open;
    private long bytes;

    /**
     * @param fs the file system to replay on
     * @param clientNumber the client's number N: its directory is {@code /clients/clientN}
     */
    public DbenchClient(ClientFs<H> fs, int clientNumber) {
        this.fs = fs;
        this.base = fs.base();
        this.clientDir = base + "/clients/client" + clientNumber;
    }

    /** Returns the bytes read and written so far (each ReadX/WriteX counts its size). */
    public long bytes() {
        return bytes;
    }

    /** Returns how many handles are open. */
    public int openHandles() {
        return open;
    }

    private Open<H> handle(long n) {
        return n >= 0 && n < handles.length ? handles[(int) n] : bigHandles.get(n);
    }

    /** Remembers {@code h} as handle {@code n}; returns what it replaces. */
    private Open<H> putHandle(long n, Open<H> h) {
        Open<H> old;
        if (n >= 0 && n < handles.length) {
            old = handles[(int) n];
            handles[(int) n] = h;
        } else {
            old = bigHandles.put(n, h);
        }
        if (old == null) {
            open++;
        }
        return old;
    }

    private Open<H> removeHandle(long n) {
        Open<H> old;
        if (n >= 0 && n < handles.length) {
            old = handles[(int) n];
            handles[(int) n] = null;
        } else {
            old = bigHandles.remove(n);
        }
        if (old != null) {
            open--;
        }
        return old;
    }

    /**
     * Closes every handle still open, as a server does when a client's session ends: a client calls
     * it before going through the file again. Debian's {@code client.txt} closes all it opens; a
     * file cut short (its first N lines) does not, and its next pass would reuse the handle
     * numbers.
     *
     * @return completes when all are closed (close failures are ignored)
     */
    public CompletableFuture<Void> closeAll() {
        List<CompletableFuture<?>> closes = new ArrayList<>();
        for (int n = 0; n < handles.length && open > 0; n++) {
            if (handles[n] != null) {
                closes.add(fs.close(removeHandle(n).file()).exceptionally(x -> null));
            }
        }
        for (Long n : List.copyOf(bigHandles.keySet())) {
            closes.add(fs.close(removeHandle(n).file()).exceptionally(x -> null));
        }
        return CompletableFuture.allOf(closes.toArray(new CompletableFuture<?>[0]));
    }

    /**
     * Runs one line. The stage completes with the line's outcome, normally; it completes
     * exceptionally only on a failure that is not a file-system answer (a bug).
     */
    public CompletableFuture<Outcome> run(LoadOp op) {
        try {
            switch (op.type()) {
                case NT_CREATE_X:
                    return ntCreateX(op);
                case CLOSE:
                    return close(op);
                case READ_X:
                    return readX(op);
                case WRITE_X:
                    return writeX(op);
                case RENAME:
                    return rename(op);
                case UNLINK:
                    return pathCall(op, fs::unlink);
                case RMDIR:
                    return pathCall(op, fs::rmdir);
                case DELTREE:
                    return deltree(path(op.path())).thenApply(DbenchClient::outcome);
                case MKDIR:
                    return mkdir(op);
                case QUERY_PATH_INFORMATION:
                    return resolve(path(op.path())).thenApply(r -> outcome(r.status()));
                case QUERY_FILE_INFORMATION:
                    return onHandle(
                            op,
                            h -> {
                                fs.fstat(h.file());
                                return OK;
                            });
                case QUERY_FS_INFORMATION:
                    fs.statfs(base.isEmpty() ? "/" : base);
                    return OK;
                case SET_FILE_INFORMATION:
                    return onHandle(op, this::setFileInformation);
                case FIND_FIRST:
                    return findFirst(op);
                case FLUSH:
                    return onHandle(
                            op,
                            h -> {
                                fs.fsync(h.file());
                                return OK;
                            });
                case LOCK_X:
                    return onHandle(
                            op,
                            h -> {
                                fs.lock(h.file(), op.arg(1), op.arg(2));
                                return OK;
                            });
                case UNLOCK_X:
                    return onHandle(
                            op,
                            h -> {
                                fs.unlock(h.file(), op.arg(1), op.arg(2));
                                return OK;
                            });
                default:
                    throw new IllegalStateException("no mapping for " + op.type());
            }
        } catch (VfsException e) {
            return CompletableFuture.completedFuture(outcome(NtStatus.fromErrno(e.errno(), true)));
        }
    }

    private String path(LoadPath p) {
        return p.resolve(base, clientDir);
    }

    private static Outcome outcome(NtStatus s) {
        return s.isOk() ? Outcome.OK : new Outcome(s, null);
    }

    /** Unwraps a stage's failure to its errno; anything but a {@link VfsException} is rethrown. */
    private static Errno errnoOf(Throwable x) {
        Throwable c = x instanceof CompletionException && x.getCause() != null ? x.getCause() : x;
        if (c instanceof VfsException v) {
            return v.errno();
        }
        if (c instanceof RuntimeException r) {
            throw r;
        }
        throw new CompletionException(c);
    }

    // ------------------------------------------------------------------ resolve_name

    /**
     * dbench's {@code resolve_name()}: {@code stat}; on failure, a case-insensitive scan of the
     * parent.
     */
    private CompletableFuture<Resolved> resolve(String path) {
        try {
            return CompletableFuture.completedFuture(new Resolved(fs.stat(path), null, true));
        } catch (VfsException e) {
            int slash = path.lastIndexOf('/');
            String parent = slash <= 0 ? "/" : path.substring(0, slash);
            String name = path.substring(slash + 1);
            Errno err = e.errno();
            return fs.list(parent)
                    .handle(
                            (names, x) -> {
                                if (x != null) {
                                    errnoOf(x);
                                    return new Resolved(null, err, false);
                                }
                                for (String n : names) {
                                    if (n.equalsIgnoreCase(name)) {
                                        break; // dbench only pays for the scan; the server would
                                        // open this name
                                    }
                                }
                                return new Resolved(null, err, true);
                            });
        }
    }

    // ------------------------------------------------------------------ handles

    private CompletableFuture<Outcome> onHandle(
            LoadOp op, Function<Open<H>, CompletableFuture<Outcome>> body) {
        Open<H> h = handle(op.arg(0));
        if (h == null) {
            return notOpen(op);
        }
        return body.apply(h);
    }

    private static CompletableFuture<Outcome> notOpen(LoadOp op) {
        return CompletableFuture.completedFuture(
                new Outcome(NtStatus.INVALID_HANDLE, "handle " + op.arg(0) + " is not open"));
    }

    @SuppressWarnings(
            "FutureReturnValueIgnored") // handle(...) nests a future that thenCompose(f -> f)
    // flattens at once
    private CompletableFuture<Outcome> ntCreateX(LoadOp op) {
        String path = path(op.path());
        long options = op.arg(0);
        long disposition = op.arg(1);
        long handle = op.arg(2);
        return resolve(path)
                .thenCompose(
                        r -> {
                            int flags = OpenFlags.O_RDWR;
                            if (disposition == FILE_CREATE) {
                                flags |= OpenFlags.O_CREAT;
                            }
                            if (disposition == FILE_OVERWRITE || disposition == FILE_OVERWRITE_IF) {
                                flags |= OpenFlags.O_CREAT | OpenFlags.O_TRUNC;
                            }
                            CompletableFuture<H> opened;
                            if ((options & FILE_DIRECTORY_FILE) != 0) {
                                // "not strictly correct, but close enough" (fileio.c): make it,
                                // then open it
                                opened =
                                        fs.mkdir(path, 0700)
                                                .handle((v, x) -> x == null ? null : errnoOf(x))
                                                .thenCompose(
                                                        v ->
                                                                fs.open(
                                                                        path,
                                                                        OpenFlags.O_RDONLY
                                                                                | OpenFlags
                                                                                        .O_DIRECTORY,
                                                                        0600));
                            } else {
                                opened = fs.open(path, flags, 0600);
                            }
                            return opened.handle(
                                            (file, x) -> {
                                                if (x == null) {
                                                    return CompletableFuture.completedFuture(file);
                                                }
                                                if (errnoOf(x) == Errno.EISDIR) {
                                                    return fs.open(
                                                            path,
                                                            OpenFlags.O_RDONLY
                                                                    | OpenFlags.O_DIRECTORY,
                                                            0600);
                                                }
                                                return CompletableFuture.<H>failedFuture(x);
                                            })
                                    .thenCompose(f -> f)
                                    .handle(
                                            (file, x) -> {
                                                if (x != null) {
                                                    return CompletableFuture.completedFuture(
                                                            outcome(
                                                                    NtStatus.fromErrno(
                                                                            errnoOf(x),
                                                                            r
                                                                                    .parentIsDirectory())));
                                                }
                                                if (!op.expected().isOk()) {
                                                    return fs.close(file)
                                                            .handle((v, y) -> Outcome.OK);
                                                }
                                                Open<H> old =
                                                        putHandle(handle, new Open<>(file, path));
                                                fs.fstat(file);
                                                if (old != null) {
                                                    return fs.close(old.file())
                                                            .handle(
                                                                    (v, y) ->
                                                                            new Outcome(
                                                                                    NtStatus.OK,
                                                                                    "handle "
                                                                                            + handle
                                                                                            + " was already open"));
                                                }
                                                return OK;
                                            })
                                    .thenCompose(f -> f);
                        });
    }

    private CompletableFuture<Outcome> close(LoadOp op) {
        Open<H> h = removeHandle(op.arg(0));
        if (h == null) {
            return notOpen(op);
        }
        return fs.close(h.file())
                .handle(
                        (v, x) ->
                                x == null
                                        ? Outcome.OK
                                        : outcome(NtStatus.fromErrno(errnoOf(x), true)));
    }

    private CompletableFuture<Outcome> readX(LoadOp op) {
        Open<H> h = handle(op.arg(0));
        if (h == null) {
            return notOpen(op);
        }
        int size = (int) op.arg(2);
        bytes += size;
        int n = fs.pread(h.file(), size, op.arg(1));
        return n == op.arg(3)
                ? OK
                : CompletableFuture.completedFuture(
                        new Outcome(
                                NtStatus.OK,
                                "read " + n + " bytes, the capture read " + op.arg(3)));
    }

    private CompletableFuture<Outcome> writeX(LoadOp op) {
        Open<H> h = handle(op.arg(0));
        if (h == null) {
            return notOpen(op);
        }
        int size = (int) op.arg(2);
        bytes += size;
        int n = fs.pwrite(h.file(), size, op.arg(1));
        return n == op.arg(3)
                ? OK
                : CompletableFuture.completedFuture(
                        new Outcome(
                                NtStatus.OK,
                                "wrote " + n + " bytes, the capture wrote " + op.arg(3)));
    }

    private CompletableFuture<Outcome> setFileInformation(Open<H> h) {
        ClientFs.FileInfo st = fs.fstat(h.file());
        long atime = (Math.floorDiv(st.atimeNanos(), SEC) - 10) * SEC;
        long mtime = (Math.floorDiv(st.mtimeNanos(), SEC) - 12) * SEC;
        return fs.utimes(h.path(), atime, mtime)
                .handle(
                        (v, x) ->
                                x == null
                                        ? Outcome.OK
                                        : outcome(NtStatus.fromErrno(errnoOf(x), true)));
    }

    // ------------------------------------------------------------------ namespace

    private CompletableFuture<Outcome> pathCall(
            LoadOp op, Function<String, CompletableFuture<Void>> call) {
        String path = path(op.path());
        return resolve(path)
                .thenCompose(
                        r ->
                                call.apply(path)
                                        .handle(
                                                (v, x) ->
                                                        x == null
                                                                ? Outcome.OK
                                                                : outcome(
                                                                        NtStatus.fromErrno(
                                                                                errnoOf(x),
                                                                                r
                                                                                        .parentIsDirectory()))));
    }

    private CompletableFuture<Outcome> rename(LoadOp op) {
        String from = path(op.path());
        String to = path(op.path2());
        return resolve(from)
                .thenCompose(
                        r1 ->
                                resolve(to)
                                        .thenCompose(
                                                r2 ->
                                                        fs.rename(from, to)
                                                                .handle(
                                                                        (v, x) ->
                                                                                x == null
                                                                                        ? Outcome.OK
                                                                                        : outcome(
                                                                                                NtStatus
                                                                                                        .fromErrno(
                                                                                                                errnoOf(
                                                                                                                        x),
                                                                                                                r1
                                                                                                                                .parentIsDirectory()
                                                                                                                        && r2
                                                                                                                                .parentIsDirectory())))));
    }

    private CompletableFuture<Outcome> mkdir(LoadOp op) {
        String path = path(op.path());
        return resolve(path)
                .thenCompose(
                        r ->
                                fs.mkdir(path, 0777)
                                        .handle(
                                                (v, x) -> {
                                                    if (x == null) {
                                                        return Outcome.OK;
                                                    }
                                                    Errno e = errnoOf(x);
                                                    if (e == Errno.EEXIST) {
                                                        try {
                                                            if (fs.stat(path).directory()) {
                                                                return Outcome.OK;
                                                            }
                                                        } catch (VfsException gone) {
                                                            // removed in between: report the EEXIST
                                                        }
                                                    }
                                                    return outcome(
                                                            NtStatus.fromErrno(
                                                                    e, r.parentIsDirectory()));
                                                }));
    }

    /** Removes {@code dir}'s tree and {@code dir}; a missing {@code dir} is fine. */
    @SuppressWarnings(
            "FutureReturnValueIgnored") // handle(...) nests a future that thenCompose(f -> f)
    // flattens at once
    private CompletableFuture<NtStatus> deltree(String dir) {
        return fs.list(dir)
                .handle(
                        (names, x) -> {
                            if (x != null) {
                                errnoOf(x);
                                return OK_STATUS; // nothing to delete (dbench ignores an opendir
                                // failure)
                            }
                            return removeEntries(dir, names, 0)
                                    .thenCompose(
                                            s ->
                                                    !s.isOk()
                                                            ? CompletableFuture.completedFuture(s)
                                                            : fs.rmdir(dir)
                                                                    .handle(
                                                                            (v, y) ->
                                                                                    y == null
                                                                                            ? NtStatus
                                                                                                    .OK
                                                                                            : NtStatus
                                                                                                    .fromErrno(
                                                                                                            errnoOf(
                                                                                                                    y),
                                                                                                            true)));
                        })
                .thenCompose(f -> f);
    }

    /**
     * Removes the entries from {@code from} on, one at a time; runs on while each step completes at
     * once.
     */
    private CompletableFuture<NtStatus> removeEntries(String dir, List<String> names, int from) {
        for (int i = from; i < names.size(); i++) {
            String name = names.get(i);
            if (name.equals(".") || name.equals("..")) {
                continue;
            }
            String child = dir + "/" + name;
            ClientFs.FileInfo st;
            try {
                st = fs.stat(child);
            } catch (VfsException e) {
                continue; // gone: as dbench, skip it
            }
            CompletableFuture<NtStatus> step =
                    st.directory()
                            ? deltree(child)
                            : fs.unlink(child)
                                    .handle(
                                            (v, x) ->
                                                    x == null
                                                            ? NtStatus.OK
                                                            : NtStatus.fromErrno(errnoOf(x), true));
            if (step.isDone() && !step.isCompletedExceptionally()) {
                NtStatus s = step.join();
                if (!s.isOk()) {
                    return step;
                }
                continue;
            }
            int next = i + 1;
            return step.thenCompose(
                    s ->
                            s.isOk()
                                    ? removeEntries(dir, names, next)
                                    : CompletableFuture.completedFuture(s));
        }
        return OK_STATUS;
    }

    private CompletableFuture<Outcome> findFirst(LoadOp op) {
        String path = path(op.path());
        return resolve(path)
                .thenCompose(
                        r -> {
                            if (!Wildcard.hasWildcard(path)) {
                                NtStatus s =
                                        r.info() != null
                                                ? NtStatus.OK
                                                : r.parentIsDirectory()
                                                        ? NtStatus.NO_SUCH_FILE
                                                        : NtStatus.OBJECT_PATH_NOT_FOUND;
                                return CompletableFuture.completedFuture(outcome(s));
                            }
                            int slash = path.lastIndexOf('/');
                            String dir = slash <= 0 ? "/" : path.substring(0, slash);
                            String pattern = path.substring(slash + 1);
                            return fs.list(dir)
                                    .handle(
                                            (names, x) -> {
                                                if (x != null) {
                                                    return outcome(
                                                            NtStatus.fromErrno(errnoOf(x), false));
                                                }
                                                long matched = 0;
                                                for (String n : names) {
                                                    if (Wildcard.matches(pattern, n)) {
                                                        matched++;
                                                    }
                                                }
                                                matched =
                                                        Math.min(
                                                                matched,
                                                                op.arg(1)); // a search returns at
                                                // most max-count
                                                // entries
                                                NtStatus s =
                                                        matched > 0
                                                                ? NtStatus.OK
                                                                : NtStatus.NO_SUCH_FILE;
                                                if (matched != op.arg(2)) {
                                                    return new Outcome(
                                                            s,
                                                            "listed "
                                                                    + matched
                                                                    + " matching entries, the capture listed "
                                                                    + op.arg(2));
                                                }
                                                return outcome(s);
                                            });
                        });
    }
}
