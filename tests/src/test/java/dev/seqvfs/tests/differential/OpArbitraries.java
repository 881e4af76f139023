package dev.seqvfs.tests.differential;

import static dev.seqvfs.protocol.OpenFlags.AT_EACCESS;
import static dev.seqvfs.protocol.OpenFlags.AT_EMPTY_PATH;
import static dev.seqvfs.protocol.OpenFlags.AT_FDCWD;
import static dev.seqvfs.protocol.OpenFlags.AT_REMOVEDIR;
import static dev.seqvfs.protocol.OpenFlags.AT_SYMLINK_FOLLOW;
import static dev.seqvfs.protocol.OpenFlags.AT_SYMLINK_NOFOLLOW;
import static dev.seqvfs.protocol.OpenFlags.O_APPEND;
import static dev.seqvfs.protocol.OpenFlags.O_CLOEXEC;
import static dev.seqvfs.protocol.OpenFlags.O_CREAT;
import static dev.seqvfs.protocol.OpenFlags.O_DIRECTORY;
import static dev.seqvfs.protocol.OpenFlags.O_EXCL;
import static dev.seqvfs.protocol.OpenFlags.O_NOFOLLOW;
import static dev.seqvfs.protocol.OpenFlags.O_PATH;
import static dev.seqvfs.protocol.OpenFlags.O_RDONLY;
import static dev.seqvfs.protocol.OpenFlags.O_RDWR;
import static dev.seqvfs.protocol.OpenFlags.O_TRUNC;
import static dev.seqvfs.protocol.OpenFlags.O_WRONLY;
import static dev.seqvfs.protocol.OpenFlags.RENAME_EXCHANGE;
import static dev.seqvfs.protocol.OpenFlags.RENAME_NOREPLACE;
import static dev.seqvfs.protocol.OpenFlags.RENAME_WHITEOUT;

import dev.seqvfs.protocol.Mode;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.Tuple;

/**
 * Generators of call sequences for the differential test.
 *
 * <p>Names come from a small universe ({@code a}, {@code b}, {@code c}, {@code "."}, {@code ".."},
 * rarely a 255-byte and a 256-byte name) so that calls keep hitting the same entries; paths have
 * one to four components, absolute or relative, sometimes with doubled or trailing slashes; rarely
 * the empty path, {@code "/"}, or a path of {@code PATH_MAX} bytes. Symlink targets are paths of
 * the same kind, so links to links, loops and dangling links arise by themselves; a rare step adds
 * a chain of 39 to 41 links in {@code /} (the {@code SYMLOOP_MAX} boundary of 40) and stats its
 * end.
 *
 * <p>Not generated (deliberate differences or calls that would block the host): {@code O_TMPFILE}
 * (its cases are examples: {@code DifferentialRegressionTest#open_tmpfile_matchesHost}), device
 * nodes by {@code mknod} (a {@code RENAME_WHITEOUT} makes its whiteout, a device node 0/0, which
 * both sides open with {@code ENXIO}); FIFOs are made but the host never opens one (see {@link
 * Outcomes#SKIPPED}); times and inode numbers are never compared. Where the host sets {@code
 * fs.protected_regular} or {@code fs.protected_fifos}, files are never given to another user
 * ({@link HostKernel#protectsStickyFiles()}).
 */
final class OpArbitraries {
    /** A 255-byte name: the longest allowed ({@code NAME_MAX}). */
    static final String NAME_MAX_NAME = "N".repeat(255);

    /** A 256-byte name: {@code ENAMETOOLONG}. */
    static final String TOO_LONG_NAME = "N".repeat(256);

    /** A path of 4097 bytes: {@code ENAMETOOLONG} ({@code PATH_MAX} counts the NUL). */
    static final String TOO_LONG_PATH = "./".repeat(2048) + "a";

    private OpArbitraries() {}

    /**
     * Returns sequences of {@code minSteps..maxSteps} steps, uniformly (a step is one call, or a
     * symlink chain). Shrinking may go below {@code minSteps}, down to one step.
     */
    static Arbitrary<List<Op>> sequences(int minSteps, int maxSteps) {
        RandomDistribution atLeastMin =
                (genSize, min, max, center) -> {
                    BigInteger lo = min.max(BigInteger.valueOf(minSteps)).min(max);
                    int span = max.subtract(lo).intValueExact() + 1;
                    return random -> lo.add(BigInteger.valueOf(random.nextInt(span)));
                };
        Arbitrary<List<List<Op>>> body =
                step().list().ofMinSize(1).ofMaxSize(maxSteps).withSizeDistribution(atLeastMin);
        return Combinators.combine(populate().list().ofMaxSize(10), body)
                .as(
                        (prelude, steps) -> {
                            List<Op> ops = new ArrayList<>(prelude);
                            steps.forEach(ops::addAll);
                            return ops;
                        });
    }

    /**
     * Calls that make names with short relative paths (from "/", where every sequence starts), put
     * before the random steps so that these find a tree to work on: without them most paths miss
     * and renames and links rarely succeed.
     */
    @SuppressWarnings("unchecked")
    static Arbitrary<Op> populate() {
        Arbitrary<String> name = Arbitraries.of("a", "b", "c");
        Arbitrary<String> shortPath =
                Arbitraries.frequencyOf(
                        Tuple.of(6, name),
                        Tuple.of(4, Combinators.combine(name, name).as((x, y) -> x + "/" + y)));
        return Arbitraries.frequencyOf(
                Tuple.of(5, Combinators.combine(shortPath, mkdirMode()).as(Op::mkdir)),
                Tuple.of(
                        4,
                        Combinators.combine(
                                        shortPath,
                                        Arbitraries.of(
                                                O_RDONLY | O_CREAT,
                                                O_WRONLY | O_CREAT,
                                                O_RDONLY | O_DIRECTORY,
                                                O_PATH))
                                .as((p, f) -> Op.open(p, f, 0644))),
                Tuple.of(2, Combinators.combine(path(), shortPath).as(Op::symlink)),
                Tuple.of(
                        2,
                        Combinators.combine(
                                        shortPath,
                                        Arbitraries.of(Mode.S_IFREG | 0644, Mode.S_IFIFO | 0600))
                                .as(Op::mknod)),
                Tuple.of(3, Combinators.combine(shortPath, shortPath).as(Op::link)));
    }

    @SuppressWarnings("unchecked")
    static Arbitrary<List<Op>> step() {
        return Arbitraries.frequencyOf(
                Tuple.of(399, op().map(List::of)), Tuple.of(1, symlinkChain()));
    }

    @SuppressWarnings("unchecked")
    static Arbitrary<Op> op() {
        return Arbitraries.frequencyOf(
                Tuple.of(18, Combinators.combine(dirfd(), path(), mkdirMode()).as(Op::mkdirat)),
                Tuple.of(
                        12,
                        Combinators.combine(dirfd(), path(), openFlags(), createMode())
                                .as(Op::openat)),
                Tuple.of(9, Combinators.combine(path(), dirfd(), path()).as(Op::symlinkat)),
                Tuple.of(
                        12,
                        Combinators.combine(dirfd(), path(), dirfd(), path(), renameFlags())
                                .as(Op::renameat2)),
                Tuple.of(5, link()),
                Tuple.of(
                        6, Combinators.combine(dirfd(), path()).as((d, p) -> Op.unlinkat(d, p, 0))),
                Tuple.of(
                        5,
                        Combinators.combine(dirfd(), path())
                                .as((d, p) -> Op.unlinkat(d, p, AT_REMOVEDIR))),
                Tuple.of(6, Combinators.combine(dirfd(), path(), nodeMode()).as(Op::mknodat)),
                Tuple.of(8, stat()),
                Tuple.of(3, Combinators.combine(dirfd(), path()).as(Op::readlinkat)),
                Tuple.of(4, fd().map(Op::close)),
                Tuple.of(2, fd().map(Op::fstat)),
                Tuple.of(2, fd().map(Op::getdents)),
                Tuple.of(
                        3,
                        Combinators.combine(
                                        dirfd(),
                                        path(),
                                        chmodMode(),
                                        Arbitraries.frequency(
                                                Tuple.of(8, 0), Tuple.of(2, AT_SYMLINK_NOFOLLOW)))
                                .as(Op::fchmodat)),
                Tuple.of(3, chown()),
                Tuple.of(
                        2,
                        Combinators.combine(
                                        dirfd(),
                                        path(),
                                        Arbitraries.integers().between(0, 4),
                                        Arbitraries.frequency(
                                                Tuple.of(6, 0),
                                                Tuple.of(3, AT_SYMLINK_NOFOLLOW),
                                                Tuple.of(1, AT_EMPTY_PATH)))
                                .as(Op::utimensat)),
                Tuple.of(3, access()),
                Tuple.of(4, path().map(Op::chdir)),
                Tuple.of(1, fd().map(Op::fchdir)),
                Tuple.of(2, Arbitraries.just(Op.getcwd())),
                Tuple.of(1, Arbitraries.of(022, 0, 077, 0777, 027).map(Op::umask)));
    }

    /**
     * Returns rename-heavy sequences: mostly mkdir and renameat2 (all flag combinations) over paths
     * of two names, one to three deep, with links, symlinks, removals and working directory changes
     * between, so that renames hit existing sources and targets: a directory into its own subtree,
     * over a non-empty directory, exchanges of a file and a directory across parents, hard links to
     * the same inode, renames of the cwd's ancestors.
     */
    @SuppressWarnings("unchecked")
    static Arbitrary<List<Op>> renameSequences(int minCalls, int maxCalls) {
        Arbitrary<String> name =
                Arbitraries.frequency(
                        Tuple.of(45, "a"), Tuple.of(45, "b"), Tuple.of(5, "."), Tuple.of(5, ".."));
        Arbitrary<String> p =
                Combinators.combine(
                                Arbitraries.frequency(Tuple.of(8, false), Tuple.of(2, true)),
                                Arbitraries.frequencyOf(
                                        Tuple.of(40, name.list().ofSize(1)),
                                        Tuple.of(40, name.list().ofSize(2)),
                                        Tuple.of(20, name.list().ofSize(3))),
                                Arbitraries.frequency(Tuple.of(9, ""), Tuple.of(1, "/")))
                        .as(
                                (abs, names, trailing) ->
                                        (abs ? "/" : "") + String.join("/", names) + trailing);
        Arbitrary<Op> op =
                Arbitraries.frequencyOf(
                        Tuple.of(25, p.map(x -> Op.mkdir(x, 0755))),
                        Tuple.of(
                                35,
                                Combinators.combine(p, p, renameFlags())
                                        .as(
                                                (x, y, f) ->
                                                        Op.renameat2(AT_FDCWD, x, AT_FDCWD, y, f))),
                        Tuple.of(6, Combinators.combine(p, p).as(Op::symlink)),
                        Tuple.of(6, Combinators.combine(p, p).as(Op::link)),
                        Tuple.of(10, p.map(x -> Op.open(x, O_WRONLY | O_CREAT, 0644))),
                        Tuple.of(5, p.map(Op::rmdir)),
                        Tuple.of(5, p.map(Op::unlink)),
                        Tuple.of(4, p.map(Op::chdir)),
                        Tuple.of(3, Arbitraries.just(Op.getcwd())),
                        Tuple.of(4, p.map(Op::lstat)),
                        Tuple.of(2, Arbitraries.integers().between(0, 4).map(Op::close)));
        RandomDistribution atLeastMin =
                (genSize, min, max, center) -> {
                    BigInteger lo = min.max(BigInteger.valueOf(minCalls)).min(max);
                    int span = max.subtract(lo).intValueExact() + 1;
                    return random -> lo.add(BigInteger.valueOf(random.nextInt(span)));
                };
        return op.list().ofMinSize(1).ofMaxSize(maxCalls).withSizeDistribution(atLeastMin);
    }

    // ------------------------------------------------------------------ names and paths

    static Arbitrary<String> name() {
        return Arbitraries.frequency(
                Tuple.of(70, "a"),
                Tuple.of(70, "b"),
                Tuple.of(40, "c"),
                Tuple.of(10, "."),
                Tuple.of(14, ".."),
                Tuple.of(1, NAME_MAX_NAME),
                Tuple.of(1, TOO_LONG_NAME));
    }

    @SuppressWarnings("unchecked")
    static Arbitrary<String> path() {
        Arbitrary<String> composed =
                Combinators.combine(
                                Arbitraries.frequency(Tuple.of(7, false), Tuple.of(3, true)),
                                Arbitraries.frequencyOf(
                                        Tuple.of(45, name().list().ofSize(1)),
                                        Tuple.of(35, name().list().ofSize(2)),
                                        Tuple.of(14, name().list().ofSize(3)),
                                        Tuple.of(6, name().list().ofSize(4))),
                                Arbitraries.frequency(Tuple.of(85, 0), Tuple.of(15, 1)),
                                Arbitraries.frequency(
                                        Tuple.of(85, ""), Tuple.of(10, "/"), Tuple.of(5, "//")))
                        .as(
                                (absolute, names, doubled, trailing) -> {
                                    String sep = doubled == 1 ? "//" : "/";
                                    return (absolute ? "/" : "")
                                            + String.join(sep, names)
                                            + trailing;
                                });
        return Arbitraries.frequencyOf(
                Tuple.of(92, composed),
                Tuple.of(3, Arbitraries.just("")),
                Tuple.of(2, Arbitraries.just("/")),
                Tuple.of(2, Arbitraries.of("/c39", "/c40", "/c41/a")),
                Tuple.of(1, Arbitraries.just(TOO_LONG_PATH)));
    }

    /**
     * Mostly {@code AT_FDCWD}; sometimes a small descriptor that may be open on anything, or not
     * open.
     */
    static Arbitrary<Integer> dirfd() {
        return Arbitraries.frequencyOf(
                Tuple.of(90, Arbitraries.just(AT_FDCWD)),
                Tuple.of(9, Arbitraries.integers().between(0, 3)),
                Tuple.of(1, Arbitraries.just(99)));
    }

    static Arbitrary<Integer> fd() {
        return Arbitraries.frequencyOf(
                Tuple.of(95, Arbitraries.integers().between(0, 4)),
                Tuple.of(5, Arbitraries.of(-1, 99)));
    }

    /**
     * A chain in {@code /}: {@code c0 -> a} (or another start), {@code c1 -> c0}, ..., {@code cN ->
     * cN-1}; resolving {@code /cN} follows N+1 links, so N of 38, 39, 40 sits on both sides of the
     * limit of 40.
     */
    static Arbitrary<List<Op>> symlinkChain() {
        return Combinators.combine(
                        Arbitraries.of(38, 39, 40), Arbitraries.of("a", "/a", "b/", "c0"))
                .as(
                        (n, start) -> {
                            List<Op> ops = new ArrayList<>();
                            ops.add(Op.symlink(start, "/c0"));
                            for (int i = 1; i <= n; i++) {
                                ops.add(Op.symlink("c" + (i - 1), "/c" + i));
                            }
                            ops.add(Op.stat("/c" + n));
                            ops.add(Op.lstat("/c" + n));
                            ops.add(Op.open("/c" + n, O_RDONLY | O_CREAT, 0644));
                            return ops;
                        });
    }

    // ------------------------------------------------------------------ arguments

    static Arbitrary<Integer> mkdirMode() {
        return Arbitraries.of(0755, 0700, 0777, 0, 01777, 02755, 0555, 07777);
    }

    static Arbitrary<Integer> createMode() {
        return Arbitraries.of(0644, 0600, 0, 04755, 02755, 0777, 07777);
    }

    static Arbitrary<Integer> chmodMode() {
        return Arbitraries.of(0755, 0644, 0, 01777, 02755, 04755, 06777, 0700, 0444, 0111);
    }

    static Arbitrary<Integer> nodeMode() {
        Arbitrary<Integer> type =
                Arbitraries.frequency(
                        Tuple.of(35, Mode.S_IFREG),
                        Tuple.of(10, 0),
                        Tuple.of(30, Mode.S_IFIFO),
                        Tuple.of(15, Mode.S_IFSOCK),
                        Tuple.of(5, Mode.S_IFDIR),
                        Tuple.of(3, Mode.S_IFMT));
        return Combinators.combine(type, Arbitraries.of(0644, 0600, 0, 04755, 0777))
                .as((t, p) -> t | p);
    }

    static Arbitrary<Integer> openFlags() {
        Arbitrary<Integer> acc =
                Arbitraries.frequency(
                        Tuple.of(40, O_RDONLY),
                        Tuple.of(25, O_WRONLY),
                        Tuple.of(30, O_RDWR),
                        Tuple.of(5, 3));
        Arbitrary<Set<Integer>> extra =
                Arbitraries.frequency(
                                Tuple.of(45, O_CREAT),
                                Tuple.of(20, O_EXCL),
                                Tuple.of(15, O_TRUNC),
                                Tuple.of(15, O_DIRECTORY),
                                Tuple.of(15, O_NOFOLLOW),
                                Tuple.of(10, O_PATH),
                                Tuple.of(5, O_APPEND),
                                Tuple.of(5, O_CLOEXEC))
                        .set()
                        .ofMaxSize(3);
        return Combinators.combine(acc, extra)
                .as(
                        (a, set) -> {
                            int f = a;
                            for (int x : set) {
                                f |= x;
                            }
                            return f;
                        });
    }

    static Arbitrary<Integer> renameFlags() {
        return Arbitraries.frequency(
                Tuple.of(10, 0),
                Tuple.of(3, RENAME_NOREPLACE),
                Tuple.of(4, RENAME_EXCHANGE),
                Tuple.of(1, RENAME_NOREPLACE | RENAME_EXCHANGE),
                Tuple.of(3, RENAME_WHITEOUT),
                Tuple.of(1, RENAME_WHITEOUT | RENAME_NOREPLACE),
                Tuple.of(1, RENAME_WHITEOUT | RENAME_EXCHANGE));
    }

    static Arbitrary<Op> link() {
        Arbitrary<Op> byPath =
                Combinators.combine(
                                dirfd(),
                                path(),
                                dirfd(),
                                path(),
                                Arbitraries.frequency(
                                        Tuple.of(3, 0), Tuple.of(1, AT_SYMLINK_FOLLOW)))
                        .as(Op::linkat);
        Arbitrary<Op> byFd =
                Combinators.combine(Arbitraries.integers().between(0, 3), dirfd(), path())
                        .as((fd, nd, np) -> Op.linkat(fd, "", nd, np, AT_EMPTY_PATH));
        return Arbitraries.frequencyOf(Tuple.of(9, byPath), Tuple.of(1, byFd));
    }

    static Arbitrary<Op> stat() {
        Arbitrary<Op> byPath =
                Combinators.combine(
                                dirfd(),
                                path(),
                                Arbitraries.frequency(
                                        Tuple.of(6, 0), Tuple.of(5, AT_SYMLINK_NOFOLLOW)))
                        .as(Op::fstatat);
        Arbitrary<Op> byFd =
                Combinators.combine(
                                Arbitraries.integers().between(0, 3),
                                Arbitraries.of(AT_EMPTY_PATH, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW))
                        .as((fd, fl) -> Op.fstatat(fd, "", fl));
        return Arbitraries.frequencyOf(Tuple.of(9, byPath), Tuple.of(1, byFd));
    }

    static Arbitrary<Op> chown() {
        Arbitrary<Integer> uid =
                HostKernel.protectsStickyFiles()
                        ? Arbitraries.of(0, -1)
                        : Arbitraries.of(0, 1000, -1);
        Arbitrary<Integer> gid = Arbitraries.of(0, 1000, -1);
        return Combinators.combine(
                        dirfd(),
                        path(),
                        uid,
                        gid,
                        Arbitraries.frequency(
                                Tuple.of(6, 0),
                                Tuple.of(3, AT_SYMLINK_NOFOLLOW),
                                Tuple.of(1, AT_EMPTY_PATH)))
                .as(Op::fchownat);
    }

    static Arbitrary<Op> access() {
        Arbitrary<Integer> mode =
                Arbitraries.frequency(
                        Tuple.of(3, Mode.F_OK),
                        Tuple.of(3, Mode.R_OK),
                        Tuple.of(3, Mode.W_OK),
                        Tuple.of(4, Mode.X_OK),
                        Tuple.of(2, Mode.R_OK | Mode.W_OK | Mode.X_OK),
                        Tuple.of(1, 8));
        return Combinators.combine(
                        dirfd(),
                        path(),
                        mode,
                        Arbitraries.frequency(
                                Tuple.of(8, 0),
                                Tuple.of(2, AT_SYMLINK_NOFOLLOW),
                                Tuple.of(1, AT_EACCESS),
                                Tuple.of(1, AT_EMPTY_PATH)))
                .as(Op::faccessat);
    }
}
