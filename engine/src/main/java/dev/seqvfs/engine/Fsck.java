package dev.seqvfs.engine;

import dev.seqvfs.engine.dir.Dentry;
import dev.seqvfs.engine.dir.DirLink;
import dev.seqvfs.engine.dir.DirSnapshot;
import dev.seqvfs.engine.dir.DirectoryInode;
import dev.seqvfs.engine.fdtable.FilesStruct;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.InodeAttrs;
import dev.seqvfs.engine.inode.InodeState;
import dev.seqvfs.engine.mount.VfsMount;
import dev.seqvfs.engine.sb.Superblock;
import dev.seqvfs.protocol.FileType;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * A consistency check of every mounted superblock, like {@code fsck}: run it on a quiet instance
 * (no call in flight) and it lists every broken invariant.
 *
 * <ul>
 *   <li>each directory's link count is {@code 2 +} its subdirectories, and its snapshot's
 *       subdirectory count matches its entries;
 *   <li>each subdirectory's parent link names the directory and the entry's name;
 *   <li>no dead directory and no freed inode is reachable; no directory is reachable twice;
 *   <li>each non-directory's link count equals the number of names it has;
 *   <li>the superblock's inode-slot count is at least the number of reachable directories plus
 *       names of files (tmpfs charges a slot per hard link), and equal to it when no file is open;
 *   <li>with every file closed, no superblock counts a writer or a removed inode still open (a
 *       read-only remount would fail with {@code EBUSY});
 *   <li>no descriptor table holds a reserved descriptor (a reservation lives only while an {@code
 *       open} is in progress).
 * </ul>
 *
 * <p>Reads published snapshots only; safe to call at any time, but only meaningful when nothing is
 * changing.
 */
public final class Fsck {
    private Fsck() {}

    /**
     * Checks every superblock mounted in {@code vfs}'s namespace.
     *
     * @param vfs the instance
     * @param expectNoOpenFiles whether every file is closed (then inode counts must be exact)
     * @return the problems found, empty when consistent
     */
    public static List<String> check(SeqVfs vfs, boolean expectNoOpenFiles) {
        List<String> problems = new ArrayList<>();
        IdentityHashMap<Superblock, Boolean> seen = new IdentityHashMap<>();
        for (VfsMount m : vfs.namespace().mountTableAcquire().mounts()) {
            Superblock sb = m.superblock();
            if (seen.put(sb, Boolean.TRUE) == null) {
                checkSuperblock(sb, expectNoOpenFiles, problems);
            }
        }
        IdentityHashMap<FilesStruct, Boolean> tables = new IdentityHashMap<>();
        for (TaskContext t : vfs.liveTasks()) {
            FilesStruct files = t.files();
            if (tables.put(files, Boolean.TRUE) == null && files.reservedCount() != 0) {
                problems.add(
                        "descriptor table of pid "
                                + t.pid()
                                + " holds "
                                + files.reservedCount()
                                + " reserved descriptors with no open in progress");
            }
        }
        return problems;
    }

    private static void checkSuperblock(Superblock sb, boolean exact, List<String> problems) {
        IdentityHashMap<Inode, Integer> names = new IdentityHashMap<>();
        IdentityHashMap<DirectoryInode, String> dirs = new IdentityHashMap<>();
        Deque<DirectoryInode> todo = new ArrayDeque<>();
        Deque<String> paths = new ArrayDeque<>();
        todo.add(sb.root());
        paths.add("/");
        dirs.put(sb.root(), "/");
        boolean anyOpen = false;
        while (!todo.isEmpty()) {
            DirectoryInode d = todo.poll();
            String path = paths.poll();
            DirSnapshot s = d.snapshotAcquire();
            if (s.isDead()) {
                problems.add(sb + ": dead directory reachable at " + path);
                continue;
            }
            int subdirs = 0;
            for (Dentry e : s.entries()) {
                Inode c = e.inode();
                String cpath = path.equals("/") ? "/" + e.name() : path + "/" + e.name();
                if (c.state() == InodeState.FREED) {
                    problems.add(sb + ": freed inode " + c.ino() + " reachable at " + cpath);
                }
                if (c.openCount() > 0) {
                    anyOpen = true;
                }
                if (c.type() == FileType.DIRECTORY) {
                    subdirs++;
                    DirectoryInode cd = (DirectoryInode) c;
                    DirLink l = cd.linkAcquire();
                    if (l == null || l.parent() != d || !l.name().equals(e.name())) {
                        problems.add(
                                sb
                                        + ": parent link of "
                                        + cpath
                                        + " is "
                                        + (l == null ? "null" : l.parent().ino() + "/" + l.name())
                                        + ", expected "
                                        + d.ino()
                                        + "/"
                                        + e.name());
                    }
                    if (dirs.put(cd, cpath) != null) {
                        problems.add(sb + ": directory " + cd.ino() + " reachable twice: " + cpath);
                        continue;
                    }
                    todo.add(cd);
                    paths.add(cpath);
                } else {
                    names.merge(c, 1, Integer::sum);
                }
            }
            if (subdirs != s.subdirs()) {
                problems.add(
                        sb
                                + ": "
                                + path
                                + " snapshot counts "
                                + s.subdirs()
                                + " subdirectories, has "
                                + subdirs);
            }
            InodeAttrs a = d.attrsAcquire();
            if (a.nlink() != 2L + subdirs) {
                problems.add(
                        sb + ": " + path + " nlink " + a.nlink() + ", expected " + (2 + subdirs));
            }
            if (d.openCount() > 0) {
                anyOpen = true;
            }
        }
        for (Map.Entry<Inode, Integer> e : names.entrySet()) {
            long nlink = e.getKey().attrsAcquire().nlink();
            if (nlink != e.getValue()) {
                problems.add(
                        sb
                                + ": inode "
                                + e.getKey().ino()
                                + " has nlink "
                                + nlink
                                + " but "
                                + e.getValue()
                                + " names");
            }
        }
        long links = 0;
        for (int n : names.values()) {
            links += n;
        }
        // tmpfs charges each name of a file (one inode slot per hard link), and each directory
        // once.
        long reachable = dirs.size() + links;
        long used = sb.usedInodes();
        if (used < reachable || (exact && !anyOpen && used != reachable)) {
            problems.add(
                    sb
                            + ": superblock counts "
                            + used
                            + " inode slots, "
                            + reachable
                            + " are reachable (directories + names of files)");
        }
        if (exact && !anyOpen && (sb.writers() != 0 || sb.removeCount() != 0)) {
            problems.add(
                    sb
                            + ": with every file closed the superblock counts "
                            + sb.writers()
                            + " writers and "
                            + sb.removeCount()
                            + " removed inodes still open (a read-only remount would be EBUSY)");
        }
    }
}
