package dev.seqvfs.engine.walk;

import dev.seqvfs.engine.dir.Dentry;
import dev.seqvfs.engine.dir.DirLink;
import dev.seqvfs.engine.dir.DirSnapshot;
import dev.seqvfs.engine.dir.DirectoryInode;
import dev.seqvfs.engine.fs.LinkJump;
import dev.seqvfs.engine.inode.Inode;
import dev.seqvfs.engine.inode.IopFlags;
import dev.seqvfs.engine.inode.Permission;
import dev.seqvfs.engine.inode.SymlinkInode;
import dev.seqvfs.engine.mount.MountTable;
import dev.seqvfs.engine.mount.VfsMount;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Filename;
import dev.seqvfs.protocol.Limits;
import dev.seqvfs.protocol.Mode;
import dev.seqvfs.protocol.PathComponents;
import dev.seqvfs.protocol.PathNames;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.util.Arrays;

/**
 * The state of one path walk ({@code struct nameidata}): where it stands, how many links it has
 * followed, and the trail of lookups it must validate. Confined to the calling thread; never
 * shared, so its fields are plain.
 *
 * <h2>The fast-path / slow-path invariant</h2>
 *
 * The optimistic walk may only return an answer the locked walk could have returned. It reads
 * published snapshots without locking or writing shared memory, records every (directory, snapshot,
 * name, dentry) it used, and {@link PathWalk} validates at the end: the rename and mount sequences
 * have not moved, and every recorded lookup but the last still holds (the directory's snapshot is
 * the same object, or its entry for that name is the same {@link Dentry} object, which is never
 * re-inserted once removed). Then every lookup held over an interval that contains the instant of
 * the last one, so the walk's answer was true at that instant: it is linearizable. On any doubt it
 * restarts; after the configured number of optimistic attempts it restarts in ref-walk mode
 * (holding the read sides of both sequence locks) and never switches back.
 *
 * <p>Follows {@code path_resolution(7)} and {@code link_path_walk} in {@code fs/namei.c}: search
 * permission on every directory component, {@code "."} and {@code ".."}, {@code ".."} stays at the
 * task's root and climbs out of mounts, at most {@link Limits#SYMLOOP_MAX} links, {@code NAME_MAX}
 * and {@code PATH_MAX}, trailing slashes.
 */
public final class Nameidata {
    /** Follow a final symbolic link. */
    public static final int LOOKUP_FOLLOW = 1;

    /** The result must be a directory ({@code ENOTDIR}). */
    public static final int LOOKUP_DIRECTORY = 1 << 1;

    /** An empty path names the start directory ({@code AT_EMPTY_PATH}). */
    public static final int LOOKUP_EMPTY = 1 << 2;

    private final PathWalk walker;
    private final WalkContext ctx;
    private final VfsPath start;
    private final String path;
    private final Syscall op;
    private final Credentials cred;

    /**
     * {@link #path}'s components parsed ahead ({@link Filename#components()}), or {@code null}: the
     * walk then reads each component of the path itself from here instead of scanning its chars.
     * Link bodies are always scanned.
     */
    private final PathComponents comps;

    /** The next component of {@link #path} to walk, while {@link #topFrame}. */
    private int ci;

    /** Whether the walk is in {@link #path} itself (not in a link body) and has {@link #comps}. */
    private boolean topFrame;

    /** Whether the bottom of the link stack is {@link #path}'s frame, with {@link #comps}. */
    private boolean topStacked;

    private MountTable mounts;
    private VfsMount mnt;
    private Inode inode;
    private int linkCount;

    private String cur;
    private int pos;
    private String[] stackPath;
    private int[] stackPos;
    private int sp;

    private boolean jumped;
    private VfsMount originMnt;
    private DirectoryInode originDir;
    private String originName;
    private Dentry originDentry;
    private String last;
    private LastType lastType;
    private boolean trailingSlash;

    /**
     * The slots of one trail entry: the directory, then the snapshot the lookup read (or the parent
     * link a ".." read), then the dentry found (a hit), the name looked up (a miss: a {@code
     * String}), or {@link #LINK_READ} (a ".." read). A hit's name is its dentry's.
     */
    static final int ENTRY = 3;

    /**
     * The trail: per lookup, {@link #ENTRY} slots. Made with each walk, so young: its stores need
     * no card marking, where a trail pooled across walks (old) would dirty a card at each walk.
     */
    private Object[] trail;

    private int trailLen;
    private boolean validateAll;

    Nameidata(
            PathWalk walker,
            WalkContext ctx,
            VfsPath start,
            String path,
            PathComponents comps,
            Syscall op) {
        this.walker = walker;
        this.ctx = ctx;
        this.start = start;
        this.path = path;
        this.comps = comps;
        this.op = op;
        this.cred = ctx.cred();
        // sized for the path's own lookups when they are known, so that it does not grow
        this.trail = new Object[ENTRY * (comps == null ? 8 : Math.max(8, comps.count() + 1))];
    }

    void reset(MountTable table) {
        mounts = table;
        mnt = null;
        inode = null;
        linkCount = 0;
        jumped = false;
        sp = 0;
        last = null;
        lastType = null;
        trailingSlash = false;
        trailLen = 0;
        validateAll = false;
        originMnt = null;
        originDir = null;
        originName = null;
        originDentry = null;
    }

    /** {@return the path being walked (internal form)} */
    public String path() {
        return path;
    }

    /** {@return the credentials the walk checks permissions with} */
    public Credentials cred() {
        return cred;
    }

    /**
     * Walks the whole path.
     *
     * @param flags {@link #LOOKUP_FOLLOW}, {@link #LOOKUP_DIRECTORY}, {@link #LOOKUP_EMPTY}
     * @return where the path leads
     * @throws VfsException {@code ENOENT}, {@code ENOTDIR}, {@code EACCES}, {@code ELOOP}, {@code
     *     ENAMETOOLONG}, as {@code path_resolution(7)} lists
     */
    public VfsPath walkFull(int flags) {
        if (!begin(flags)) {
            return new VfsPath(mnt, inode);
        }
        run(false, flags);
        return new VfsPath(mnt, inode);
    }

    /**
     * Walks to the parent of the final component and stops there; {@link #last()}, {@link
     * #lastType()} and {@link #trailingSlash()} describe the final component.
     *
     * @return the parent directory
     */
    public VfsPath walkParent() {
        if (!begin(0)) {
            lastType = LastType.ROOT;
            return new VfsPath(mnt, inode);
        }
        run(true, 0);
        return new VfsPath(mnt, inode);
    }

    /**
     * After {@link #walkParent()}: looks the final component up in the parent, checking search
     * permission, and records the lookup for validation. A final component longer than {@code
     * NAME_MAX} is {@code ENAMETOOLONG} here ({@code ENOENT} in a removed directory), not during
     * {@link #walkParent()}.
     *
     * @return the dentry, or {@code null} when the name is absent
     */
    public Dentry lookupLast() {
        mayLookup(inode);
        DirectoryInode dir = (DirectoryInode) inode;
        if (last.length() > Limits.NAME_MAX) {
            throw error(isDeadDir(dir) ? Errno.ENOENT : Errno.ENAMETOOLONG);
        }
        if ((dir.iopFlags() & IopFlags.IOP_CUSTOM_LOOKUP) != 0) {
            Inode child = dir.ops().lookup(dir, last, ctx);
            return child == null ? null : new Dentry(last, child, 0, 0);
        }
        return lookupIn(dir, last);
    }

    /**
     * Whether {@code dir} was removed: Linux's lookup says ENOENT there before it looks at the
     * name.
     */
    private static boolean isDeadDir(Inode dir) {
        return dir instanceof DirectoryInode d && d.snapshotAcquire().isDead();
    }

    /**
     * After {@link #lookupLast()} returned a symbolic link that must be followed: walks its body as
     * a new parent walk, so that the caller can look up, or create, its final component.
     *
     * @param link the symbolic link
     * @return the new parent
     * @throws VfsException {@code ELOOP} past {@link Limits#SYMLOOP_MAX} links
     */
    public VfsPath followLast(Inode link) {
        boolean slash = trailingSlash;
        enterLink(link);
        run(true, 0);
        trailingSlash |= slash;
        return new VfsPath(mnt, inode);
    }

    /**
     * Steps from the parent into a child found by {@link #lookupLast()}, crossing mounts.
     *
     * @param child the inode the final component names
     * @return the child's path
     */
    public VfsPath stepIntoLast(Inode child) {
        stepInto(child);
        return new VfsPath(mnt, inode);
    }

    /**
     * Looks {@code name} up in {@code dir} and records the lookup for validation, for callers that
     * read the tree other than by walking down a path ({@code getcwd}).
     *
     * @param dir the directory
     * @param name the name, in internal form
     * @return the dentry, or {@code null}
     */
    public Dentry lookupRecorded(DirectoryInode dir, String name) {
        return lookupIn(dir, name);
    }

    /**
     * Reads {@code dir}'s parent link and records the read for validation, for callers that climb
     * the tree ({@code getcwd}).
     *
     * @param dir the directory
     * @return the link, or {@code null} for a superblock root
     */
    public DirLink linkRecorded(DirectoryInode dir) {
        DirLink l = dir.linkAcquire();
        recordLink(dir, l);
        return l;
    }

    /** {@return the mount table this attempt reads} */
    public MountTable mounts() {
        return mounts;
    }

    /**
     * {@return whether the last link followed was a magic link that jumped to an inode ({@code
     * /proc/self/fd/N}); after {@link #followLast} the walk then stands on the target itself,
     * returned by {@link #current()}, not on a parent}
     */
    public boolean jumped() {
        return jumped;
    }

    /**
     * {@return the mount of the directory the final inode was last looked up in, or {@code null}}
     */
    public VfsMount originMnt() {
        return originMnt;
    }

    /** {@return the directory the final inode was last looked up in, or {@code null}} */
    public DirectoryInode originDir() {
        return originDir;
    }

    /** {@return the name the final inode was last looked up by, or {@code null}} */
    public String originName() {
        return originName;
    }

    /**
     * {@return the dentry the final inode was last looked up through, or {@code null} (none, or a
     * computed lookup such as procfs, whose entries are made per lookup)}
     */
    public Dentry originDentry() {
        return originDentry;
    }

    /** {@return where the walk stands} */
    public VfsPath current() {
        return new VfsPath(mnt, inode);
    }

    /** {@return the final component after {@link #walkParent()} (internal form)} */
    public String last() {
        return last;
    }

    /** {@return the kind of final component after {@link #walkParent()}} */
    public LastType lastType() {
        return lastType;
    }

    /** {@return whether the final component was followed by a slash} */
    public boolean trailingSlash() {
        return trailingSlash;
    }

    private boolean begin(int flags) {
        if (path.isEmpty()) {
            if ((flags & LOOKUP_EMPTY) != 0) {
                mnt = start.mnt();
                inode = start.inode();
                return false;
            }
            throw error(Errno.ENOENT);
        }
        if (path.length() >= Limits.PATH_MAX) {
            throw error(Errno.ENAMETOOLONG);
        }
        cur = path;
        pos = 0;
        ci = 0;
        topFrame = comps != null;
        topStacked = false;
        if (path.charAt(0) == '/') {
            VfsPath r = ctx.root();
            mnt = r.mnt();
            inode = r.inode();
        } else {
            mnt = start.mnt();
            inode = start.inode();
            if ((inode.iopFlags() & IopFlags.IOP_LOOKUP) == 0) {
                throw error(Errno.ENOTDIR);
            }
        }
        return true;
    }

    private void run(boolean parentMode, int flags) {
        // The origin of the final inode is kept in locals while the walk runs and stored once when
        // it ends: four reference stores per component (each with the collector's barriers) were
        // a measurable part of a walk's cost.
        VfsMount oMnt = originMnt;
        DirectoryInode oDir = originDir;
        String oName = originName;
        Dentry oDentry = originDentry;
        try {
            while (true) {
                String s = cur;
                int len = s.length();
                PathComponents pc = topFrame ? comps : null;
                int p;
                if (pc != null) {
                    int n = pc.count();
                    // The common case in a tight loop: an ordinary name, not the last, found in
                    // a plain directory the caller may search, naming a directory with no mount
                    // on it. Anything else (or a miss) leaves the loop before recording anything,
                    // and the general steps below take the same component from the same state.
                    while (ci < n - 1 && pc.kind(ci) == PathComponents.NAME) {
                        Inode di = inode;
                        int df = di.iopFlags();
                        if ((df & (IopFlags.IOP_LOOKUP | IopFlags.IOP_CUSTOM_LOOKUP))
                                        != IopFlags.IOP_LOOKUP
                                || ((cred.uid() != 0 || (df & IopFlags.IOP_PERMISSION) != 0)
                                        && !Permission.check(di, Mode.X_OK, cred))) {
                            break;
                        }
                        int c = ci;
                        int cs = pc.start(c);
                        int ce = pc.end(c);
                        if (ce - cs > Limits.NAME_MAX) {
                            break;
                        }
                        DirectoryInode dir = (DirectoryInode) di;
                        DirSnapshot snap = dir.snapshotAcquire();
                        Dentry found = snap.lookup(s, cs, ce, pc.hash(c), pc.word0(c), pc.word1(c));
                        if (found == null) {
                            break;
                        }
                        Inode child = found.inode();
                        if ((child.iopFlags() & (IopFlags.IOP_LOOKUP | IopFlags.IOP_FOLLOW_LINK))
                                        != IopFlags.IOP_LOOKUP
                                || ((DirectoryInode) child).mountCount() > 0) {
                            break;
                        }
                        appendTrail(dir, snap, found);
                        oMnt = mnt;
                        oDir = dir;
                        oName = found.name();
                        oDentry = found;
                        inode = child;
                        ci = c + 1;
                        pos = pc.start(c + 1);
                    }
                    p = ci < n ? pc.start(ci) : len;
                } else {
                    p = pos;
                    while (p < len && s.charAt(p) == '/') {
                        p++;
                    }
                }
                if (p == len) {
                    if (sp > 0) {
                        sp--;
                        cur = stackPath[sp];
                        pos = stackPos[sp];
                        stackPath[sp] = null;
                        // the bottom frame is the path's own only if it was pushed from there
                        topFrame = sp == 0 && topStacked;
                        topStacked &= !topFrame;
                        continue;
                    }
                    if (parentMode) {
                        lastType = LastType.ROOT;
                        last = null;
                    } else if ((flags & LOOKUP_DIRECTORY) != 0
                            && (inode.iopFlags() & IopFlags.IOP_LOOKUP) == 0) {
                        throw error(Errno.ENOTDIR);
                    }
                    return;
                }
                // One pass finds the component's end, computes its String hash code and packs its
                // first 16 chars as a dentry stores them, so that the lookup needs neither a
                // substring nor a second pass over the chars (DirSnapshot.lookup of a range).
                int end;
                int hash;
                long w0;
                long w1;
                boolean wide;
                int after;
                LastType type;
                if (pc != null) {
                    // parsed ahead: no char of the component is read
                    int c = ci++;
                    end = pc.end(c);
                    hash = pc.hash(c);
                    w0 = pc.word0(c);
                    w1 = pc.word1(c);
                    int kind = pc.kind(c);
                    wide = kind == PathComponents.WIDE;
                    type =
                            kind == PathComponents.DOT
                                    ? LastType.DOT
                                    : kind == PathComponents.DOTDOT
                                            ? LastType.DOTDOT
                                            : LastType.NORM;
                    after = ci < pc.count() ? pc.start(ci) : len;
                } else {
                    end = p;
                    hash = 0;
                    w0 = 0;
                    w1 = 0;
                    int seen = 0;
                    char ch;
                    while (end < len && (ch = s.charAt(end)) != '/') {
                        hash = 31 * hash + ch;
                        seen |= ch;
                        int i = end - p;
                        if (i < 8) {
                            w0 |= (long) ch << (i << 3);
                        } else if (i < 16) {
                            w1 |= (long) ch << ((i - 8) << 3);
                        }
                        end++;
                    }
                    wide = seen > 0xFF;
                    after = end;
                    while (after < len && s.charAt(after) == '/') {
                        after++;
                    }
                    type = typeOf(s, p, end);
                }
                boolean lastInFrame = after == len;
                boolean isLast = lastInFrame && sp == 0;
                boolean slashAfter = end < len;
                if (isLast && slashAfter) {
                    // A trailing slash makes the final component a directory that must be
                    // followed, through however many links (link_path_walk's LOOKUP_FOLLOW |
                    // LOOKUP_DIRECTORY), even after the slash itself has been consumed.
                    flags |= LOOKUP_FOLLOW | LOOKUP_DIRECTORY;
                }
                pos = after;
                if ((inode.iopFlags() & IopFlags.IOP_LOOKUP) == 0) {
                    // only after a magic link jumped to a non-directory with components left
                    throw error(Errno.ENOTDIR);
                }
                if (isLast && parentMode) {
                    // NAME_MAX is checked where the final component is looked up (lookupLast, the
                    // directory actor), as Linux's lookup does, after the caller's earlier checks.
                    last = s.substring(p, end);
                    lastType = type;
                    trailingSlash = slashAfter;
                    return;
                }
                if (isLast && slashAfter) {
                    // As lookup_last: a trailing slash makes the rest of the walk, including the
                    // bodies of links it follows, follow links and require a directory.
                    flags |= LOOKUP_FOLLOW | LOOKUP_DIRECTORY;
                }
                mayLookup(inode);
                if (end - p > Limits.NAME_MAX) {
                    throw error(isDeadDir(inode) ? Errno.ENOENT : Errno.ENAMETOOLONG);
                }
                if (type == LastType.DOT) {
                    if (isLast) {
                        checkFinalDir(flags, slashAfter);
                    }
                    continue;
                }
                if (type == LastType.DOTDOT) {
                    followDotdot();
                    if (isLast) {
                        checkFinalDir(flags, slashAfter);
                    }
                    continue;
                }
                DirectoryInode dir = (DirectoryInode) inode;
                Inode child;
                Dentry found = null;
                String name;
                if ((dir.iopFlags() & IopFlags.IOP_CUSTOM_LOOKUP) != 0) {
                    name = s.substring(p, end);
                    child = dir.ops().lookup(dir, name, ctx);
                } else {
                    found =
                            wide
                                    ? lookupIn(dir, s, p, end)
                                    : lookupIn(dir, s, p, end, hash, w0, w1);
                    if (found == null) {
                        throw error(Errno.ENOENT);
                    }
                    // the dentry's name equals the component: no substring on a hit
                    name = found.name();
                    child = found.inode();
                }
                if (child == null) {
                    throw error(Errno.ENOENT);
                }
                int f = child.iopFlags();
                if ((f & IopFlags.IOP_FOLLOW_LINK) != 0
                        && (!isLast || (flags & LOOKUP_FOLLOW) != 0 || slashAfter)) {
                    if (!lastInFrame) {
                        push(s, after);
                    }
                    enterLink(child);
                    continue;
                }
                oMnt = mnt;
                oDir = dir;
                oName = name;
                oDentry = found;
                if (isLast) {
                    stepInto(child);
                    checkFinalDir(flags, slashAfter);
                    return;
                }
                if ((f & IopFlags.IOP_LOOKUP) == 0) {
                    throw error(Errno.ENOTDIR);
                }
                stepInto(child);
            }
        } finally {
            originMnt = oMnt;
            originDir = oDir;
            originName = oName;
            originDentry = oDentry;
        }
    }

    private void checkFinalDir(int flags, boolean slashAfter) {
        if (((flags & LOOKUP_DIRECTORY) != 0 || slashAfter)
                && (inode.iopFlags() & IopFlags.IOP_LOOKUP) == 0) {
            throw error(Errno.ENOTDIR);
        }
    }

    private static LastType typeOf(String s, int p, int end) {
        int n = end - p;
        if (n == 1 && s.charAt(p) == '.') {
            return LastType.DOT;
        }
        if (n == 2 && s.charAt(p) == '.' && s.charAt(p + 1) == '.') {
            return LastType.DOTDOT;
        }
        return LastType.NORM;
    }

    private void push(String s, int p) {
        if (stackPath == null) {
            stackPath = new String[4];
            stackPos = new int[4];
        } else if (sp == stackPath.length) {
            stackPath = Arrays.copyOf(stackPath, sp * 2);
            stackPos = Arrays.copyOf(stackPos, sp * 2);
        }
        stackPath[sp] = s;
        stackPos[sp] = p;
        topStacked |= topFrame;
        sp++;
    }

    private void enterLink(Inode link) {
        if (++linkCount > Limits.SYMLOOP_MAX) {
            throw error(Errno.ELOOP);
        }
        topFrame = false;
        if ((link.iopFlags() & IopFlags.IOP_CUSTOM_LINK) != 0) {
            LinkJump j;
            try {
                j = link.ops().jump(link, ctx);
            } catch (VfsException e) {
                throw error(e.errno());
            }
            if (j != null) {
                mnt = j.mnt() != null ? j.mnt() : mnt;
                inode = j.inode();
                cur = "";
                pos = 0;
                jumped = true;
                return;
            }
        }
        String target;
        try {
            target =
                    (link.iopFlags() & IopFlags.IOP_CUSTOM_LINK) != 0
                            ? link.ops().getLink(link, ctx)
                            : ((SymlinkInode) link).target();
        } catch (VfsException e) {
            throw error(e.errno());
        }
        if (target.isEmpty()) {
            throw error(Errno.ENOENT);
        }
        cur = target;
        pos = 0;
        if (target.charAt(0) == '/') {
            VfsPath r = ctx.root();
            mnt = r.mnt();
            inode = r.inode();
        }
    }

    private void mayLookup(Inode dir) {
        if (cred.uid() != 0 || (dir.iopFlags() & IopFlags.IOP_PERMISSION) != 0) {
            if (!Permission.check(dir, Mode.X_OK, cred)) {
                throw error(Errno.EACCES);
            }
        }
    }

    private Dentry lookupIn(DirectoryInode dir, String name) {
        DirSnapshot s = dir.snapshotAcquire();
        Dentry d = s.lookup(name);
        appendTrail(dir, s, d != null ? d : name);
        return d;
    }

    /**
     * As {@link #lookupIn(DirectoryInode, String)} for the component {@code path[off, end)} whose
     * {@code String} hash code is {@code hash} and whose first 16 chars are packed in {@code w0}
     * and {@code w1} (as a dentry stores its name's). The trail records the dentry on a hit (its
     * name is the component), a copy of the name on a miss.
     */
    private Dentry lookupIn(
            DirectoryInode dir, String path, int off, int end, int hash, long w0, long w1) {
        DirSnapshot s = dir.snapshotAcquire();
        Dentry d = s.lookup(path, off, end, hash, w0, w1);
        appendTrail(dir, s, d != null ? d : path.substring(off, end));
        return d;
    }

    /**
     * The lookup of a component with a char above {@code 0xFF} (not internal form): no directory
     * holds such a name, but the miss is recorded like any other.
     */
    private Dentry lookupIn(DirectoryInode dir, String path, int off, int end) {
        DirSnapshot s = dir.snapshotAcquire();
        appendTrail(dir, s, path.substring(off, end));
        return null;
    }

    /** Records a read of a directory's parent link ("..") for validation: slot 2 marks the kind. */
    private void recordLink(DirectoryInode dir, DirLink l) {
        appendTrail(dir, l, LINK_READ);
    }

    /** Appends one trail entry of {@link #ENTRY} slots, growing the trail when full. */
    private void appendTrail(Object a, Object b, Object c) {
        int k = trailLen * ENTRY;
        Object[] tr = trail;
        if (k == tr.length) {
            tr = trail = Arrays.copyOf(tr, k * 2);
        }
        tr[k] = a;
        tr[k + 1] = b;
        tr[k + 2] = c;
        trailLen++;
    }

    /** Marks a trail entry as a parent-link read rather than a lookup. */
    static final Object LINK_READ = new Object();

    private void stepInto(Inode child) {
        if (child instanceof DirectoryInode d && d.mountCount() > 0) {
            VfsMount m;
            while (d.mountCount() > 0 && (m = mounts.childAt(mnt, d)) != null) {
                mnt = m;
                d = m.root();
            }
            inode = d;
            return;
        }
        inode = child;
    }

    private void followDotdot() {
        VfsPath root = ctx.root();
        while (true) {
            if (inode == root.inode() && mnt == root.mnt()) {
                return;
            }
            if (inode != mnt.root()) {
                DirectoryInode d = (DirectoryInode) inode;
                DirLink l = d.linkAcquire();
                recordLink(d, l);
                if (l != null) {
                    stepInto(l.parent());
                }
                return;
            }
            if (mnt.parent() == null || mnt.isDetached()) {
                // choose_mountpoint: a mount with no parent (the namespace root, or one a lazy
                // umount detached) has nothing above its root: ".." stays there.
                return;
            }
            inode = mnt.mountpoint();
            mnt = mnt.parent();
        }
    }

    /**
     * Tells the walk that the caller read more after the last lookup (the attributes of the inode
     * it reached): validation then checks every recorded lookup, the last one included, so that the
     * caller's read and the path it came through hold at one instant.
     */
    public void readAfterWalk() {
        validateAll = true;
    }

    /**
     * {@return a proof of this walk (every lookup so far), for a writer to check when it applies
     * the call} Call it at the end of the walk function.
     */
    public WalkProof proof() {
        return new WalkProof(walker.locks(), Arrays.copyOf(trail, trailLen * ENTRY), null);
    }

    /** {@link #checkTrail}: the walk's reads form one consistent cut. */
    static final int HOLDS = 0;

    /** {@link #checkTrail}: a value the walk read has changed: walk again. */
    static final int CHANGED = 1;

    /**
     * {@link #checkTrail}: a cross-directory rename was publishing a change of a directory on the
     * trail during the check: check again (the reads may still hold once it is done).
     */
    static final int RENAMING = 2;

    /**
     * Checks that every recorded lookup but the last (all of them after {@link #readAfterWalk()})
     * still holds, with no cross-directory rename half published on any directory of the trail
     * during the check.
     *
     * @return {@code true} if the walk's reads form one consistent cut
     */
    boolean validateTrail() {
        return checkTrail() == HOLDS;
    }

    /**
     * {@return {@link #HOLDS}, {@link #CHANGED} or {@link #RENAMING}} As {@link #validateTrail},
     * telling a value that changed (walk again) from a rename that was publishing (check again).
     */
    int checkTrail() {
        return checkTrail(trail, trailLen, validateAll ? trailLen : trailLen - 1);
    }

    /**
     * Checks a trail of {@code len} entries: every directory's rename sequence is even, the first
     * {@code entries} entries hold ({@link #entryHolds}), and every rename sequence is the same
     * again. The sequences only grow, so equal sums mean equal sequences. The sequences of all
     * {@code len} directories are read, the last lookup's too: that read has to be consistent with
     * the others at one instant with no rename half published, as the rename write lock's stamp
     * around the check proved when walks sampled it (the per-directory {@code d_seq} instead keeps
     * walks off the line every rename writes).
     *
     * @param tr the trail
     * @param len its entries
     * @param entries how many of them to re-read
     * @return {@link #HOLDS}, {@link #CHANGED} or {@link #RENAMING}
     */
    static int checkTrail(Object[] tr, int len, int entries) {
        long before = renameSeqs(tr, len);
        if (before < 0) {
            return RENAMING;
        }
        for (int i = 0, k = 0; i < entries; i++, k += ENTRY) {
            if (!entryHolds(tr, k)) {
                return CHANGED;
            }
        }
        return renameSeqs(tr, len) == before ? HOLDS : RENAMING;
    }

    /**
     * {@return the sum of the rename sequences of the trail's directories, or -1 if one is odd}
     *
     * @param tr the trail
     * @param len its entries
     */
    static long renameSeqs(Object[] tr, int len) {
        long sum = 0;
        for (int k = 0, end = len * ENTRY; k < end; k += ENTRY) {
            int q = ((DirectoryInode) tr[k]).renameSeq();
            if ((q & 1) != 0) {
                return -1;
            }
            sum += q & 0xFFFFFFFFL;
        }
        return sum;
    }

    /**
     * Returns whether trail entry {@code k} still holds: a lookup's directory has the same snapshot
     * or the same dentry for the name; a parent-link read finds the same link. Snapshots, dentries
     * and links are new objects each time they are published and are never published again, so "the
     * same object" means "unchanged since it was read".
     */
    static boolean entryHolds(Object[] tr, int k) {
        DirectoryInode d = (DirectoryInode) tr[k];
        Object found = tr[k + 2];
        if (found == LINK_READ) {
            return d.linkAcquire() == tr[k + 1];
        }
        DirSnapshot now = d.snapshotAcquire();
        if (now == tr[k + 1]) {
            return true;
        }
        return found instanceof Dentry e
                ? now.lookup(e.name()) == e
                : now.lookup((String) found) == null;
    }

    /**
     * {@return an exception for {@code e} naming the walk's operation and path}
     *
     * @param e the errno
     */
    public VfsException error(Errno e) {
        return new VfsException(e, op, PathNames.toExternal(path));
    }

    PathWalk walker() {
        return walker;
    }
}
