package dev.seqvfs.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
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
}
