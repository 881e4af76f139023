package dev.seqvfs.bench;

/**
 * One file system under measurement, driven through its own native API and path type: SeqVFS
 * through {@code VfsTask} with {@code String} paths, Jimfs and the host's {@code /dev/shm} through
 * {@code java.nio} with {@link java.nio.file.Path}s.
 *
 * <p>Every benchmark names paths in one absolute namespace ({@code "/t0/d2/d3/d4/d5/f"}); {@link
 * #path(String)} turns such a name into the target's handle once, in setup, so the measured loop
 * only calls the file system. A JMH fork measures one target, so each call site here sees one
 * implementation and is inlined.
 *
 * <p>Thread-safe: several benchmark threads call one target (as threads of one process call one
 * kernel).
 *
 * @param <P> the target's path handle
 */
public abstract class FsTarget<P> implements AutoCloseable {
    /** The {@code @Param} values that name the targets, in table order. */
    public static final String SEQVFS = "seqvfs";

    /** Google's in-memory {@code java.nio} file system. */
    public static final String JIMFS = "jimfs";

    /** The host kernel's tmpfs ({@code /dev/shm}) through {@code java.nio}. */
    public static final String HOST = "host";

    /**
     * Opens a fresh, empty target.
     *
     * @param name {@link #SEQVFS}, {@link #JIMFS} or {@link #HOST}
     * @return the target; close it to free its memory or its {@code /dev/shm} directory
     */
    @SuppressWarnings("unchecked")
    public static FsTarget<Object> open(String name) {
        FsTarget<?> t =
                switch (name) {
                    case SEQVFS -> new SeqVfsTarget();
                    case JIMFS -> new JimfsTarget();
                    case HOST -> new HostTarget();
                    default -> throw new IllegalArgumentException("unknown file system: " + name);
                };
        return (FsTarget<Object>) t;
    }

    /** Returns the handle of an absolute bench path such as {@code "/t0/f"}. */
    public abstract P path(String absolute);

    /** Creates a directory ({@code mkdir}, mode 0755). */
    public abstract void mkdir(P dir) throws Exception;

    /** Creates an empty regular file (mode 0644); fails if it exists. */
    public abstract void create(P file) throws Exception;

    /** Removes a file ({@code unlink}). */
    public abstract void unlink(P file) throws Exception;

    /** Returns the attributes of {@code path}, following a final symlink ({@code stat}). */
    public abstract Object stat(P path) throws Exception;

    /** Renames {@code from} to {@code to} atomically ({@code rename(2)}). */
    public abstract void rename(P from, P to) throws Exception;

    /**
     * Opens a regular file for reading and writing, creating it (mode 0644) if it is missing.
     *
     * @return the target's handle of the open file (a descriptor, a channel)
     */
    public abstract Object openData(P file) throws Exception;

    /** Writes all of {@code buf} at byte offset {@code off} ({@code pwrite(2)}). */
    public abstract void pwrite(Object file, byte[] buf, long off) throws Exception;

    /** Reads up to {@code buf.length} bytes at byte offset {@code off} ({@code pread(2)}). */
    public abstract int pread(Object file, byte[] buf, long off) throws Exception;

    /** Changes the size of an open file to {@code size} bytes ({@code ftruncate(2)}). */
    public abstract void ftruncate(Object file, long size) throws Exception;

    /** Closes a file {@link #openData} opened. */
    public abstract void closeData(Object file) throws Exception;

    /** Returns the target's own slow-path counters, or {@code ""} if it has none. */
    public String counters() {
        return "";
    }

    /**
     * Creates every directory named in {@code absolute} that is missing (like {@code mkdir -p}).
     */
    public final void mkdirs(String absolute) throws Exception {
        StringBuilder sb = new StringBuilder();
        for (String part : absolute.split("/", -1)) {
            if (part.isEmpty()) {
                continue;
            }
            sb.append('/').append(part);
            P p = path(sb.toString());
            if (!exists(p)) {
                mkdir(p);
            }
        }
    }

    private boolean exists(P p) {
        try {
            stat(p);
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    @Override
    public abstract void close() throws Exception;
}
