package dev.seqvfs.protocol;

/**
 * {@code socket(2)} address families, types and type flags with Linux's values, and {@code
 * pipe2(2)} uses {@link OpenFlags#O_NONBLOCK} / {@link OpenFlags#O_CLOEXEC}.
 */
public final class SocketFlags {
    /** Local (Unix domain) sockets. */
    public static final int AF_UNIX = 1;

    /** IPv4. */
    public static final int AF_INET = 2;

    /** IPv6. */
    public static final int AF_INET6 = 10;

    /** Reliable byte stream. */
    public static final int SOCK_STREAM = 1;

    /** Datagrams. */
    public static final int SOCK_DGRAM = 2;

    /** Raw protocol access ({@code AF_UNIX} turns it into {@link #SOCK_DGRAM}). */
    public static final int SOCK_RAW = 3;

    /** Reliable sequenced packets. */
    public static final int SOCK_SEQPACKET = 5;

    /** Type flag: non-blocking. */
    public static final int SOCK_NONBLOCK = OpenFlags.O_NONBLOCK;

    /** Type flag: close-on-exec. */
    public static final int SOCK_CLOEXEC = OpenFlags.O_CLOEXEC;

    private SocketFlags() {}
}
