package dev.seqvfs.engine;

import dev.seqvfs.engine.dir.Dentry;
import dev.seqvfs.engine.dir.DirLink;
import dev.seqvfs.engine.dir.DirSnapshot;
import dev.seqvfs.engine.dir.DirectoryInode;
import dev.seqvfs.engine.fdtable.FdTable;
import dev.seqvfs.engine.fdtable.FilesStruct;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.InodeAttrs;
import dev.seqvfs.engine.inode.InodeState;
import dev.seqvfs.engine.inode.IopFlags;
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
 *   <li>the whole superblock is accounted for: every inode it has charged is reachable by a name,
 *       or open and unlinked, or freed. Its inode-slot count equals the reachable directories, plus
 *       the names of files (tmpfs charges a slot per hard link), plus the removed inodes still open
 *       ({@code s_remove_count}); its byte count equals what the reachable inodes and the open
 *       unlinked ones found in descriptor tables hold (at least that, if some removed inode is held
 *       elsewhere, such as a descriptor in flight in a socket). An inode that was removed and never
 *       freed (a leak) fails this whether or not anything is open; a superblock in the JVM's pool
 *       of tmpfs bytes ({@code HeapPool}) holds exactly its byte count there;
 *   <li>the tree counts of a superblock a fork copies (its {@code ForkGenerations}: what a fork of
 *       it is charged) are the reachable directories plus names of files, and the bytes the
 *       reachable inodes hold;
 *   <li>no inode held by a descriptor has links but no name that reaches it, and no open removed
 *       directory has links left;
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
     * @param expectNoOpenFiles whether every file is closed: then no superblock may count a writer
     *     or a removed inode still open (the inode and byte accounting is checked either way)
     * @return the problems found, empty when consistent
     */
    public static List<String> check(SeqVfs vfs, boolean expectNoOpenFiles) {
        List<String> problems = new ArrayList<>();
        IdentityHashMap<FilesStruct, Boolean> tables = new IdentityHashMap<>();
        IdentityHashMap<Inode, Boolean> open = new IdentityHashMap<>();
        for (TaskContext t : vfs.liveTasks()) {
            FilesStruct files = t.files();
            if (tables.put(files, Boolean.TRUE) != null) {
                continue;
            }
            if (files.reservedCount() != 0) {
                problems.add(
                        "descriptor table of pid "
                                + t.pid()
                                + " holds "
                                + files.reservedCount()
                                + " reserved descriptors with no open in progress");
            }
            FdTable table = files.tableAcquire();
            for (int fd : table.openFds()) {
                FdTable.Entry e = table.get(fd);
                if (e != null) {
                    open.put(e.file().inode(), Boolean.TRUE);
                }
            }
        }
        IdentityHashMap<Superblock, Boolean> seen = new IdentityHashMap<>();
        for (VfsMount m : vfs.namespace().mountTableAcquire().mounts()) {
            Superblock sb = m.superblock();
            if (seen.put(sb, Boolean.TRUE) == null) {
                checkSuperblock(sb, expectNoOpenFiles, open, problems);
            }
        }
        return problems;
    }

    private static void checkSuperblock(
            Superblock sb,
            boolean exact,
            IdentityHashMap<Inode, Boolean> open,
            List<String> problems) {
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
            if (a.nlink() != 2L + subdirs && (d.iopFlags() & IopFlags.IOP_CUSTOM_LOOKUP) == 0) {
                // (a computed directory's link count is its type's, not its empty snapshot's)
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
        long reachableBytes = 0;
        for (Map.Entry<Inode, Integer> e : names.entrySet()) {
            links += e.getValue();
            reachableBytes += e.getKey().chargedBytesNow();
        }
        for (DirectoryInode d : dirs.keySet()) {
            reachableBytes += d.chargedBytesNow();
        }
        // Open inodes of this superblock that no name reaches: removed and still open (they
        // keep their slot and bytes until the last close), or a leak.
        long openUnlinked = 0;
        long openUnlinkedBytes = 0;
        for (Inode i : open.keySet()) {
            if (i.owner() != sb || names.containsKey(i) || dirs.containsKey(i)) {
                continue;
            }
            anyOpen = true;
            long nlink = i.attrsAcquire().nlink();
            if (i.state() == InodeState.FREED) {
                problems.add(sb + ": inode " + i.ino() + " is open but was freed");
            } else if (nlink != 0) {
                problems.add(
                        sb
                                + ": inode "
                                + i.ino()
                                + " ("
                                + i.type()
                                + ") is open and has "
                                + nlink
                                + " links, but no name reaches it");
            } else {
                openUnlinked++;
                openUnlinkedBytes += i.chargedBytesNow();
            }
        }
        // tmpfs charges each name of a file (one inode slot per hard link), each directory once,
        // and a removed inode keeps one slot until it is freed (s_remove_count counts those).
        long removed = sb.removeCount();
        long accounted = dirs.size() + links + removed;
        long used = sb.usedInodes();
        if (used != accounted) {
            problems.add(
                    sb
                            + ": superblock counts "
                            + used
                            + " inode slots, "
                            + accounted
                            + " are accounted for ("
                            + dirs.size()
                            + " directories + "
                            + links
                            + " names of files + "
                            + removed
                            + " removed inodes still open): "
                            + (used > accounted
                                    ? (used - accounted)
                                            + " charged inodes are neither reachable,"
                                            + " nor open, nor freed"
                                    : "slots were returned twice"));
        }
        if (openUnlinked > removed) {
            problems.add(
                    sb
                            + ": "
                            + openUnlinked
                            + " removed inodes are open, but the superblock counts "
                            + removed);
        }
        long bytes = sb.usedBytes();
        long heldBytes = reachableBytes + openUnlinkedBytes;
        if (openUnlinked == removed ? bytes != heldBytes : bytes < heldBytes) {
            problems.add(
                    sb
                            + ": superblock counts "
                            + bytes
                            + " bytes, reachable and open inodes hold "
                            + heldBytes);
        }
        if (VfsFork.copies(sb.type())) {
            // what a fork of it is charged (ForkGenerations): the tree's slots and bytes
            long slots = sb.forks().treeSlots();
            if (slots != dirs.size() + links) {
                problems.add(
                        sb
                                + ": the tree count says "
                                + slots
                                + " slots, the tree has "
                                + dirs.size()
                                + " directories and "
                                + links
                                + " names of files");
            }
            long treeBytes = sb.forks().treeBytes();
            if (treeBytes != reachableBytes) {
                problems.add(
                        sb
                                + ": the tree count says "
                                + treeBytes
                                + " bytes, the inodes with a name hold "
                                + reachableBytes);
            }
        }
        if (sb.heapPool() != null && sb.heapPoolHeld() != bytes) {
            problems.add(
                    sb
                            + ": superblock counts "
                            + bytes
                            + " bytes, but holds "
                            + sb.heapPoolHeld()
                            + " in the JVM's pool of tmpfs bytes");
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
