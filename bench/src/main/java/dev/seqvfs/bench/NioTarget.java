package dev.seqvfs.bench;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * A {@code java.nio} file system, called the way an application would: {@code Files} static methods
 * on {@link Path}s resolved once.
 *
 * <p>Costs {@code java.nio} adds on the host, each one system call: {@code createFile} is {@code
 * open(O_CREAT|O_EXCL)} + {@code close}; {@code delete} is {@code lstat} + {@code unlink} (it must
 * choose between {@code unlink} and {@code rmdir}).
 */
abstract class NioTarget extends FsTarget<Path> {
    @Override
    public void mkdir(Path dir) throws Exception {
        Files.createDirectory(dir);
    }

    @Override
    public void create(Path file) throws Exception {
        Files.createFile(file);
    }

    @Override
    public void unlink(Path file) throws Exception {
        Files.delete(file);
    }

    @Override
    public Object stat(Path path) throws Exception {
        return Files.readAttributes(path, BasicFileAttributes.class);
    }

    @Override
    public void rename(Path from, Path to) throws Exception {
        Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
    }

    @Override
    public Object openData(Path file) throws Exception {
        return FileChannel.open(
                file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    }

    @Override
    public void pwrite(Object file, byte[] buf, long off) throws Exception {
        FileChannel ch = (FileChannel) file;
        ByteBuffer b = ByteBuffer.wrap(buf);
        while (b.hasRemaining()) {
            ch.write(b, off + b.position());
        }
    }

    @Override
    public int pread(Object file, byte[] buf, long off) throws Exception {
        return ((FileChannel) file).read(ByteBuffer.wrap(buf), off);
    }

    @Override
    public void ftruncate(Object file, long size) throws Exception {
        ((FileChannel) file).truncate(size);
    }

    @Override
    public void closeData(Object file) throws Exception {
        ((FileChannel) file).close();
    }
}
