package dev.seqvfs.nio;

/**
 * A file's identity, as {@link java.nio.file.attribute.BasicFileAttributes#fileKey()} returns it:
 * the device and inode numbers, printed as the JDK's {@code UnixFileKey} prints itself. Immutable.
 *
 * @param dev the device number ({@code st_dev})
 * @param ino the inode number ({@code st_ino})
 */
record FileKey(long dev, long ino) {
    @Override
    public String toString() {
        return "(dev=" + Long.toHexString(dev) + ",ino=" + ino + ")";
    }
}
