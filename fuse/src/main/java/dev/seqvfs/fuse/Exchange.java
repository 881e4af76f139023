package dev.seqvfs.fuse;

import dev.seqvfs.protocol.Filename;
import dev.seqvfs.protocol.Stat;
import java.nio.ByteBuffer;
import jnr.ffi.Pointer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One worker's request and reply buffers: the request read from {@code /dev/fuse} ({@code struct
 * fuse_in_header} then the opcode's arguments) and the reply built for it ({@code struct
 * fuse_out_header} then the opcode's answer), each a direct buffer of native byte order read and
 * written with absolute gets and puts at {@link FuseAbi}'s offsets. An argument offset ({@code
 * arg*}) counts from the end of the request header; a reply offset ({@code put*}) from the end of
 * the reply header.
 *
 * <p>Not thread-safe: one per worker thread, reused for every request it serves.
 */
final class Exchange {
    private static final Logger LOG = LoggerFactory.getLogger(Exchange.class);

    private final int device;
    final ByteBuffer in;
    final Pointer inAddress;
    final ByteBuffer out;
    final Pointer outAddress;

    /** Scratch bytes for file data (a write's bytes), {@code max_write} long. */
    final byte[] data;

    /**
     * A view of {@link #out}'s data (its bytes after the reply header) that a read fills straight
     * from the engine's pages ({@link #readData}); one per exchange, so no buffer is made per read.
     */
    private final ByteBuffer outData;

    /** The request's length in bytes, as {@code read(2)} returned it. */
    int length;

    /**
     * Makes the buffers.
     *
     * @param device the {@code /dev/fuse} descriptor replies are written to
     * @param bufferSize the request buffer's size: {@code max_write} plus room for the headers
     * @param dataSize the largest read or write, in bytes
     */
    Exchange(int device, int bufferSize, int dataSize) {
        this.device = device;
        in = Libc.direct(bufferSize);
        inAddress = Libc.address(in);
        out = Libc.direct(FuseAbi.OUT_HEADER + Math.max(dataSize, FuseAbi.MIN_READ_BUFFER));
        outAddress = Libc.address(out);
        data = new byte[dataSize];
        outData = out.duplicate();
    }

    /**
     * {@return the reply's data area, positioned at its start with room for {@code size} bytes} For
     * a read to fill straight from the engine.
     *
     * @param size the bytes wanted, at most the data area's size
     */
    ByteBuffer readData(int size) {
        outData.clear();
        outData.position(FuseAbi.OUT_HEADER);
        outData.limit(FuseAbi.OUT_HEADER + size);
        return outData;
    }

    // ---------------------------------------------------------------- the request

    int opcode() {
        return in.getInt(FuseAbi.IN_OPCODE);
    }

    long unique() {
        return in.getLong(FuseAbi.IN_UNIQUE);
    }

    long nodeid() {
        return in.getLong(FuseAbi.IN_NODEID);
    }

    int uid() {
        return in.getInt(FuseAbi.IN_UID);
    }

    int gid() {
        return in.getInt(FuseAbi.IN_GID);
    }

    int pid() {
        return in.getInt(FuseAbi.IN_PID);
    }

    int argInt(int off) {
        return in.getInt(FuseAbi.IN_HEADER + off);
    }

    long argLong(int off) {
        return in.getLong(FuseAbi.IN_HEADER + off);
    }

    /** {@return the number of argument bytes after the header} */
    int argLength() {
        return length - FuseAbi.IN_HEADER;
    }

    /** {@return the end (exclusive) of the NUL-terminated string at argument offset {@code off}} */
    private int stringEnd(int off) {
        int from = FuseAbi.IN_HEADER + off;
        for (int i = from; i < length; i++) {
            if (in.get(i) == 0) {
                return i;
            }
        }
        return length;
    }

    /**
     * {@return the name (bytes, not decoded: any byte but NUL and {@code /}) at argument offset
     * {@code off}}
     */
    Filename name(int off) {
        return Filename.of(bytes(off));
    }

    /** {@return the NUL-terminated bytes at argument offset {@code off}, without the NUL} */
    byte[] bytes(int off) {
        int from = FuseAbi.IN_HEADER + off;
        byte[] b = new byte[stringEnd(off) - from];
        in.get(from, b);
        return b;
    }

    /** {@return the argument offset just past the NUL of the string at {@code off}} */
    int after(int off) {
        return stringEnd(off) + 1 - FuseAbi.IN_HEADER;
    }

    /**
     * {@return the NUL-terminated bytes at argument offset {@code off} as the engine's text of
     * them} UTF-8, with each byte that is not valid UTF-8 as {@code U+DC80..U+DCFF} ({@link
     * Filename}'s surrogateescape), so that any bytes round-trip ({@link #bytesOf}). For extended
     * attribute names, which the engine takes as text.
     */
    String text(int off) {
        return Filename.of(bytes(off)).toString();
    }

    /** {@return the bytes of engine text {@code s}: the inverse of {@link #text}} */
    static byte[] bytesOf(String s) {
        return Filename.of(s).bytes();
    }

    // ---------------------------------------------------------------- the reply

    void putInt(int off, int v) {
        out.putInt(FuseAbi.OUT_HEADER + off, v);
    }

    void putShort(int off, short v) {
        out.putShort(FuseAbi.OUT_HEADER + off, v);
    }

    void putLong(int off, long v) {
        out.putLong(FuseAbi.OUT_HEADER + off, v);
    }

    void putBytes(int off, byte[] b, int from, int n) {
        out.put(FuseAbi.OUT_HEADER + off, b, from, n);
    }

    void zero(int off, int n) {
        for (int i = 0; i < n; i++) {
            out.put(FuseAbi.OUT_HEADER + off + i, (byte) 0);
        }
    }

    /**
     * Writes {@code struct fuse_attr} of {@code s} at reply offset {@code off} (88 bytes): times as
     * seconds and nanoseconds, the engine's inode number, type and permission bits in {@code mode}.
     */
    void putAttr(int off, Stat s) {
        putLong(off, s.ino());
        putLong(off + 8, s.size());
        putLong(off + 16, s.blocks());
        putLong(off + 24, Math.floorDiv(s.atimeNanos(), 1_000_000_000L));
        putLong(off + 32, Math.floorDiv(s.mtimeNanos(), 1_000_000_000L));
        putLong(off + 40, Math.floorDiv(s.ctimeNanos(), 1_000_000_000L));
        putInt(off + 48, (int) Math.floorMod(s.atimeNanos(), 1_000_000_000L));
        putInt(off + 52, (int) Math.floorMod(s.mtimeNanos(), 1_000_000_000L));
        putInt(off + 56, (int) Math.floorMod(s.ctimeNanos(), 1_000_000_000L));
        putInt(off + 60, s.mode());
        putInt(off + 64, (int) Math.min(s.nlink(), 0xFFFF_FFFFL));
        putInt(off + 68, s.uid());
        putInt(off + 72, s.gid());
        putInt(off + 76, (int) s.rdev());
        putInt(off + 80, s.blksize());
        putInt(off + 84, 0);
    }

    /**
     * Sends the reply: the header, then {@code payload} bytes already put ({@code write(2)} of the
     * whole, one call).
     *
     * @return {@code true} if the kernel took it; {@code false} if the request is gone ({@code
     *     ENOENT}: interrupted and abandoned, or the connection aborted), so nothing it carried (a
     *     lookup count) reached the kernel
     */
    boolean reply(int payload) {
        return send(header(payload, 0));
    }

    /**
     * Sends an error reply: {@code errno} (positive) as the header's negative {@code error}, no
     * payload.
     *
     * @return as {@link #reply}
     */
    boolean replyError(int errno) {
        return send(header(0, -errno));
    }

    private boolean send(int len) {
        long n = Libc.c().write(device, outAddress, len);
        if (n == len) {
            return true;
        }
        int e = Libc.errno();
        if (e != Libc.ENOENT && e != Libc.ENODEV) {
            LOG.warn(
                    "FUSE reply to opcode {} (unique {}, {} bytes) refused: errno {}",
                    opcode(),
                    unique(),
                    len,
                    e);
        }
        return false;
    }

    /**
     * Fills the reply header for {@code unique}: {@code len} is the header plus {@code payload}
     * bytes, {@code error} is 0 or a negative errno.
     *
     * @return the reply's whole length in bytes
     */
    int header(int payload, int error) {
        int len = FuseAbi.OUT_HEADER + payload;
        out.putInt(0, len);
        out.putInt(4, error);
        out.putLong(8, unique());
        return len;
    }
}
