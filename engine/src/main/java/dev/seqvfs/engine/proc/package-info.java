/**
 * The proc file system ({@code proc(5)}), mounted with {@code mount("proc", "/proc", "proc", 0, null)}:
 * {@code /proc/self}, {@code /proc/<pid>/fd/N} magic links, {@code /proc/<pid>/fdinfo/N},
 * {@code /proc/<pid>/cwd}, {@code /proc/mounts}. Its directories compute their entries on
 * lookup ({@code IOP_CUSTOM_LOOKUP}); its links are computed ({@code IOP_CUSTOM_LINK}).
 */
package dev.seqvfs.engine.proc;
