/**
 * The {@code hostfs} file system (the name of User-mode Linux's type that shows a directory of the
 * host): a host directory mounted into a SeqVFS namespace through a {@link
 * java.nio.file.spi.FileSystemProvider} of the host (the JDK's own default provider unless one is
 * given). {@link dev.seqvfs.engine.fs.hostfs.HostfsType} ({@code mount("/usr/lib/jvm", "/jdk",
 * "hostfs", MS_RDONLY, null)}) builds a superblock whose directories look their names up on the
 * host ({@code IOP_CUSTOM_LOOKUP}, as procfs's) and whose files read the host's bytes. It is
 * read-only: its superblocks are born {@code SB_RDONLY}, as squashfs's, so every change is {@code
 * EROFS}.
 */
package dev.seqvfs.engine.fs.hostfs;
