package dev.seqvfs.protocol;

/** {@code poll(2)} event bits with Linux's values ({@code <asm-generic/poll.h>}). */
public final class Poll {
    /** There is data to read. */
    public static final int POLLIN = 0x001;

    /** There is urgent data to read. */
    public static final int POLLPRI = 0x002;

    /** Writing is possible now. */
    public static final int POLLOUT = 0x004;

    /** Error condition (a pipe's write end with no reader left); reported even if not asked. */
    public static final int POLLERR = 0x008;

    /** Hang up (a pipe's read end with no writer left); reported even if not asked. */
    public static final int POLLHUP = 0x010;

    /** The descriptor is not open; reported even if not asked. */
    public static final int POLLNVAL = 0x020;

    /** Normal data may be read. */
    public static final int POLLRDNORM = 0x040;

    /** Normal data may be written. */
    public static final int POLLWRNORM = 0x100;

    /** The peer shut down writing (stream sockets). */
    public static final int POLLRDHUP = 0x2000;

    /**
     * What a file without its own {@code ->poll} reports: readable and writable ({@code
     * DEFAULT_POLLMASK}).
     */
    public static final int DEFAULT_POLLMASK = POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM;

    private Poll() {}
}
