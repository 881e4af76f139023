package dev.seqvfs.engine.fs;

import dev.seqvfs.protocol.Credentials;

/**
 * One write in flight ({@code struct kiocb}): who writes, where it starts, how, and, once the
 * file's operations return, where it ended. The call layer makes one per {@code write}, reads
 * {@link #pos()} afterwards to move the file position, and never shares it between threads.
 *
 * <p>Not thread-safe: owned by the one call that made it.
 */
public final class Kiocb {
    /** {@code O_APPEND}: the write starts at the end of the file, whatever {@link #pos()} says. */
    public static final int IOCB_APPEND = 1;

    /** {@code O_NONBLOCK}: a stream that cannot take the bytes now fails with {@code EAGAIN}. */
    public static final int IOCB_NOWAIT = 1 << 1;

    private final Credentials cred;
    private final int flags;
    private long pos;

    /**
     * @param cred who writes (an unprivileged writer clears set-user-ID, {@code file_remove_privs})
     * @param pos the byte offset the write asks for
     * @param flags {@link #IOCB_APPEND}, {@link #IOCB_NOWAIT}
     */
    public Kiocb(Credentials cred, long pos, int flags) {
        this.cred = cred;
        this.pos = pos;
        this.flags = flags;
    }

    /** {@return who writes} */
    public Credentials cred() {
        return cred;
    }

    /** {@return the byte offset: where the write asks to start, and after it, where it ended} */
    public long pos() {
        return pos;
    }

    /**
     * Sets the byte offset the write ended at; called by the file's operations.
     *
     * @param p the byte offset after the last byte written
     */
    public void setPos(long p) {
        pos = p;
    }

    /** {@return whether the write goes to the end of the file ({@code O_APPEND})} */
    public boolean append() {
        return (flags & IOCB_APPEND) != 0;
    }

    /** {@return whether the write must not wait ({@code O_NONBLOCK})} */
    public boolean nowait() {
        return (flags & IOCB_NOWAIT) != 0;
    }
}
