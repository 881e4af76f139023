package dev.seqvfs.fuse;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;
import jnr.ffi.annotations.Out;
import jnr.ffi.types.size_t;
import jnr.ffi.types.ssize_t;

/**
 * The C library calls the kernel transport makes ({@code /dev/fuse}, {@code mount(2)}, {@code
 * umount2(2)}, the descriptor passing of {@code fusermount3}), through jnr-ffi. Buffers are direct
 * {@link ByteBuffer}s in native byte order, passed to C as their address ({@link #address}), so a
 * request is read into, and a reply written from, memory Java parses with plain absolute gets.
 *
 * <p>Errors: each method returns what the C function returns ({@code -1} on failure); {@link
 * #errno()} is the calling thread's {@code errno} after the last call (jnr-ffi saves it).
 * Stateless; thread-safe.
 */
final class Libc {
    /**
     * The functions, as {@code <unistd.h>}, {@code <fcntl.h>}, {@code <sys/mount.h>} declare them.
     */
    public interface C {
        /** {@code open(2)}. */
        int open(String path, int flags);

        /** {@code close(2)}. */
        int close(int fd);

        /** {@code read(2)}. */
        @ssize_t
        long read(int fd, Pointer buf, @size_t long count);

        /** {@code write(2)}. */
        @ssize_t
        long write(int fd, Pointer buf, @size_t long count);

        /** {@code mount(2)}. */
        int mount(String source, String target, String fstype, long flags, String data);

        /** {@code umount2(2)}. */
        int umount2(String target, int flags);

        /** {@code socketpair(2)}. */
        int socketpair(int domain, int type, int protocol, @Out int[] sv);

        /** {@code recvmsg(2)}. */
        @ssize_t
        long recvmsg(int fd, Pointer msg, int flags);

        /** {@code fcntl(2)} with an integer argument. */
        int fcntl(int fd, int cmd, int arg);

        /** {@code getuid(2)}. */
        int getuid();

        /** {@code getgid(2)}. */
        int getgid();
    }

    /** {@code O_RDWR}. */
    static final int O_RDWR = 2;

    /** {@code O_CLOEXEC}. */
    static final int O_CLOEXEC = 0x80000;

    /** {@code MNT_DETACH} ({@code umount2(2)}). */
    static final int MNT_DETACH = 2;

    /** {@code AF_UNIX}. */
    static final int AF_UNIX = 1;

    /** {@code SOCK_STREAM}. */
    static final int SOCK_STREAM = 1;

    /** {@code F_SETFD}. */
    static final int F_SETFD = 2;

    /** {@code FD_CLOEXEC}. */
    static final int FD_CLOEXEC = 1;

    /** {@code SOL_SOCKET}, {@code SCM_RIGHTS}. */
    static final int SOL_SOCKET = 1;

    static final int SCM_RIGHTS = 1;

    /** errno values the transport tells apart. */
    static final int EPERM = 1;

    static final int ENOENT = 2;
    static final int EINTR = 4;
    static final int EAGAIN = 11;
    static final int EBUSY = 16;
    static final int ENODEV = 19;
    static final int EINVAL = 22;

    private static volatile C lib;
    private static volatile Runtime runtime;

    private Libc() {}

    /**
     * {@return the C library, loaded on first use}
     *
     * @throws UnsatisfiedLinkError if jnr-ffi cannot load {@code libc}
     */
    static C c() {
        C l = lib;
        if (l == null) {
            synchronized (Libc.class) {
                l = lib;
                if (l == null) {
                    l = LibraryLoader.create(C.class).failImmediately().load("c");
                    runtime = Runtime.getRuntime(l);
                    lib = l;
                }
            }
        }
        return l;
    }

    /** {@return the calling thread's {@code errno} after its last call through {@link #c()}} */
    static int errno() {
        c();
        return runtime.getLastError();
    }

    /** {@return a direct buffer of {@code size} bytes in native (little-endian) byte order} */
    static ByteBuffer direct(int size) {
        return ByteBuffer.allocateDirect(size).order(ByteOrder.nativeOrder());
    }

    /** {@return the address of direct buffer {@code b}, as a pointer C can take} */
    static Pointer address(ByteBuffer b) {
        c();
        long address = com.kenai.jffi.MemoryIO.getInstance().getDirectBufferAddress(b);
        return Pointer.wrap(runtime, address, b.capacity());
    }
}
