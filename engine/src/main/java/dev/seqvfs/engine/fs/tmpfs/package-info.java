/**
 * tmpfs ({@code shmem}), a complete example of a {@link dev.seqvfs.engine.fs.FileSystemType} whose
 * names and data live in memory: {@link dev.seqvfs.engine.fs.tmpfs.TmpfsType} parses the mount
 * options ({@code size}, {@code nr_inodes}, {@code mode}, {@code uid}, {@code gid}) and builds a
 * superblock whose directories run the generic {@link dev.seqvfs.engine.dir.DirectoryActor} and
 * whose regular files keep their pages in a {@link dev.seqvfs.engine.file.FileData} ({@link
 * dev.seqvfs.engine.file.RegularFileOperations}). Every SeqVFS instance's root is a tmpfs unless
 * its configuration names another type.
 */
package dev.seqvfs.engine.fs.tmpfs;
