/**
 * The proc file system ({@code proc(5)}), a complete example of a {@link
 * dev.seqvfs.engine.fs.FileSystemType} whose names are computed, not stored ({@code FS_VIRTUAL}):
 * {@link dev.seqvfs.engine.fs.proc.ProcType} ({@code mount("proc", "/proc", "proc", 0, null)})
 * builds a superblock whose directories compute their entries on lookup ({@code IOP_CUSTOM_LOOKUP})
 * and whose links are computed ({@code IOP_CUSTOM_LINK}): {@code /proc/self}, {@code
 * /proc/<pid>/fd/N} magic links, {@code /proc/<pid>/fdinfo/N}, {@code /proc/<pid>/cwd}, {@code
 * /proc/mounts}, {@code /proc/filesystems}. Its files are read-only text whose operations follow
 * {@code seq_file}.
 */
package dev.seqvfs.engine.fs.proc;
