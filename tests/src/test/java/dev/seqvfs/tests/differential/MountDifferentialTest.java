package dev.seqvfs.tests.differential;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.Fsck;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.fuse.FuseMount;
import dev.seqvfs.fuse.FuseMountException;
import dev.seqvfs.protocol.OpenFlags;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Specifies that SeqVFS mounted through FUSE ({@code seqvfs mount}) behaves as the host kernel's
 * tmpfs for real system calls: the differential test's random sequences (the same generators as
 * {@link DifferentialPropertyTest}) are made by two {@code hostops} servers, one chrooted into a
 * fresh directory on {@code /dev/shm}, the other into a fresh directory inside the mount, and every
 * call's result (value or errno) must be equal, then the final trees. What is tested is the whole
 * path: the kernel's FUSE client, the front end's transport ({@code /dev/fuse}, inode-based) and
 * mapping, the engine. Every call of the generators is made, {@code renameat2}'s flags and sticky
 * modes included, and inodes with no name left (a file removed while open, a removed working
 * directory, a descriptor whose opening name was unlinked while another hard link remains) answer
 * as on the host: the libfuse 2 path transport could not, and this test used to accept those
 * differences.
 *
 * <p>One difference is known and accepted: {@link #isCreateOverStickySymlink}. After the last try
 * the mount is closed and the engine must hold no open file and pass {@code Fsck}.
 *
 * <p>About 60 s on 2 cores (FUSE round trips); {@code -Dseqvfs.diff.tries=N} sets the tries.
 */
@AddLifecycleHook(HostKernelHooks.class)
class MountDifferentialTest {
    private static SeqVfs vfs;
    private static FuseMount mount;
    private static Path mountPoint;

    /**
     * A second mount, of an instance of its own, where the kernel caches what it saw and checks
     * permissions itself ({@link FuseMount#CACHED_OPTIONS}, {@code seqvfs mount}'s default).
     */
    private static SeqVfs cachedVfs;

    private static FuseMount cachedMount;
    private static Path cachedMountPoint;

    @BeforeContainer
    static void mountIt() throws IOException, FuseMountException {
        if (HostKernel.unavailableReason() != null) {
            return; // skipped by the hook, with the reason
        }
        mountPoint = Files.createTempDirectory("seqvfs-fuse-diff-");
        vfs = SeqVfs.create(FuseMount.engineConfig(ConfigFactory.load()));
        // "dev": the host's sandbox tmpfs is no nodev mount, so a device node (a RENAME_WHITEOUT's
        // whiteout) opens with ENXIO there; the mount's default nodev would answer EACCES from the
        // kernel before asking the file system (a mount option, not the file system's answer)
        mount = FuseMount.mount(vfs, mountPoint, List.of("dev"));
        cachedMountPoint = Files.createTempDirectory("seqvfs-fuse-diff-cached-");
        cachedVfs = SeqVfs.create(FuseMount.engineConfig(ConfigFactory.load()));
        cachedMount =
                FuseMount.mount(
                        cachedVfs, cachedMountPoint, List.of(FuseMount.CACHED_OPTIONS, "dev"));
    }

    @AfterContainer
    static void unmountIt() throws Exception {
        if (mount == null) {
            return;
        }
        try {
            closeAndCheck(cachedMount, cachedVfs, cachedMountPoint);
        } finally {
            closeAndCheck(mount, vfs, mountPoint);
        }
    }

    private static void closeAndCheck(FuseMount mount, SeqVfs vfs, Path mountPoint)
            throws Exception {
        try {
            mount.close();
            assertEquals(0, mount.openHandles(), "handles left after the unmount");
            assertEquals(List.of(), Fsck.check(vfs, true), "engine state after the unmount");
        } finally {
            vfs.close();
            try {
                Files.deleteIfExists(mountPoint);
            } catch (IOException e) {
                // still mounted (a failed close above says why): left for /tmp's cleaning
            }
        }
    }

    @Property(tries = 150, edgeCases = EdgeCasesMode.NONE)
    void namespaceCalls_randomSequences_throughTheMount_matchHostKernel(
            @ForAll("sequences") List<Op> ops) {
        check(ops);
    }

    @Property(tries = 100, edgeCases = EdgeCasesMode.NONE)
    void namespaceCalls_randomSequences_throughACachingMount_matchHostKernel(
            @ForAll("sequences") List<Op> ops) {
        check(ops, cachedMountPoint);
    }

    /**
     * The random sequences' find of 2026-12-02, shrunk: a file opened as {@code a}, linked as
     * {@code b}, {@code a} unlinked, then {@code fstat} of the descriptor: {@code nlink=1}, as on
     * the host (the libfuse 2 transport, with one node per name, answered {@code ENOENT}).
     */
    @Example
    void fstat_afterTheOpeningNameIsUnlinked_whileAHardLinkRemains() {
        check(
                List.of(
                        Op.open("a", OpenFlags.O_RDONLY | OpenFlags.O_CREAT, 0644),
                        Op.link("a", "b"),
                        Op.unlink("a"),
                        Op.fstat(0),
                        Op.stat("b")));
    }

    /**
     * Shrunk from a CI failure: attribute calls on a removed working directory ({@code "./."})
     * succeed, as on the host (a {@code SETATTR} of a node with no name left; {@code ENOENT}
     * through the libfuse 2 transport).
     */
    @Example
    void attributeCalls_inARemovedWorkingDirectory() {
        check(
                List.of(
                        Op.mkdir("b", 0755),
                        Op.chdir("b"),
                        Op.rmdir("/b"),
                        Op.lchown("./.", -1, -1),
                        Op.chown(".", 1000, 0),
                        Op.lstat("."),
                        Op.getcwd()));
    }

    /**
     * Shrunk from a CI failure: {@code fchdir} to a directory removed while open succeeds, and the
     * calls after it fail in the removed directory, as on the host ({@code ENOENT} through the
     * libfuse 2 transport, whose {@code GETATTR} had no path for it).
     */
    @Example
    void fchdir_toADirectoryRemovedWhileOpen() {
        check(
                List.of(
                        Op.mkdir("b", 0755),
                        Op.open("b", OpenFlags.O_RDONLY | OpenFlags.O_DIRECTORY, 0644),
                        Op.rmdir("b"),
                        Op.fchdir(0),
                        Op.mkdir("c", 0700),
                        Op.getcwd(),
                        Op.stat("c")));
    }

    /**
     * {@code renameat2} with {@code RENAME_NOREPLACE} over an existing name ({@code EEXIST}) and
     * {@code RENAME_EXCHANGE} of a file and a directory, then their contents and types: as on the
     * host ({@code EINVAL} for both flags through the libfuse 2 transport, which has no {@code
     * rename2}).
     */
    @Example
    void renameat2_noreplaceAndExchange() {
        check(
                List.of(
                        Op.open("a", OpenFlags.O_RDWR | OpenFlags.O_CREAT, 0644),
                        Op.mkdir("d", 0755),
                        Op.renameat2(
                                OpenFlags.AT_FDCWD,
                                "a",
                                OpenFlags.AT_FDCWD,
                                "d",
                                OpenFlags.RENAME_NOREPLACE),
                        Op.renameat2(
                                OpenFlags.AT_FDCWD,
                                "a",
                                OpenFlags.AT_FDCWD,
                                "d",
                                OpenFlags.RENAME_EXCHANGE),
                        Op.stat("a"),
                        Op.stat("d"),
                        Op.renameat2(
                                OpenFlags.AT_FDCWD,
                                "a",
                                OpenFlags.AT_FDCWD,
                                "n",
                                OpenFlags.RENAME_NOREPLACE),
                        Op.renameat2(
                                OpenFlags.AT_FDCWD,
                                "n",
                                OpenFlags.AT_FDCWD,
                                "d",
                                OpenFlags.RENAME_EXCHANGE | OpenFlags.RENAME_NOREPLACE),
                        Op.stat("n")));
    }

    /**
     * {@code chown} of a regular file with set-id bits and the sticky bit: the set-id bits go, the
     * sticky bit stays ({@code 07755} becomes {@code 01755}), as on the host (the libfuse 2
     * transport computed the mode in the kernel and lost the sticky bit).
     */
    @Example
    void chown_ofASetIdFile_keepsItsStickyBit() {
        check(
                List.of(
                        Op.open("f", OpenFlags.O_RDWR | OpenFlags.O_CREAT, 0644),
                        Op.chmod("f", 07755),
                        Op.chown("f", 1000, 1000),
                        Op.stat("f"),
                        Op.chmod("f", 07755),
                        Op.chown("f", -1, -1),
                        Op.stat("f")));
    }

    /**
     * {@code O_TMPFILE} through the mount (the kernel's {@code FUSE_TMPFILE}): a nameless file of
     * link count 0 that {@code linkat(AT_EMPTY_PATH)} names, one opened with {@code O_EXCL} that
     * cannot be linked ({@code ENOENT}), and the refusals of a read-only open ({@code EINVAL}) and
     * of a non-directory ({@code ENOTDIR}): as on the host's tmpfs, on both mounts (before the
     * server handled the request, every such open was {@code EOPNOTSUPP}).
     */
    @Example
    void oTmpfile_linkableUnlessExclusive_asOnTheHost() {
        List<Op> ops =
                List.of(
                        Op.mkdir("d", 0755),
                        Op.open("d", OpenFlags.O_TMPFILE | OpenFlags.O_RDWR, 0640),
                        Op.fstat(0),
                        Op.linkat(0, "", OpenFlags.AT_FDCWD, "d/named", OpenFlags.AT_EMPTY_PATH),
                        Op.fstat(0),
                        Op.stat("d/named"),
                        Op.open(
                                "d",
                                OpenFlags.O_TMPFILE | OpenFlags.O_RDWR | OpenFlags.O_EXCL,
                                0600),
                        Op.fstat(1),
                        Op.linkat(1, "", OpenFlags.AT_FDCWD, "d/n2", OpenFlags.AT_EMPTY_PATH),
                        Op.open("d", OpenFlags.O_TMPFILE | OpenFlags.O_RDONLY, 0600),
                        Op.open("d/named", OpenFlags.O_TMPFILE | OpenFlags.O_WRONLY, 0600),
                        Op.stat("d"));
        check(ops);
        check(ops, cachedMountPoint);
    }

    @Property(tries = 60, edgeCases = EdgeCasesMode.NONE)
    void renames_randomSequencesOverTwoNames_throughTheMount_matchHostKernel(
            @ForAll("renameSequences") List<Op> ops) {
        check(ops);
    }

    @Provide
    Arbitrary<List<Op>> sequences() {
        return OpArbitraries.sequences(20, 60);
    }

    @Provide
    Arbitrary<List<Op>> renameSequences() {
        return OpArbitraries.renameSequences(20, 60);
    }

    private static void check(List<Op> ops) {
        check(ops, mountPoint);
    }

    private static void check(List<Op> ops, Path mountPoint) {
        Path sandbox;
        try {
            sandbox = Files.createTempDirectory(mountPoint, "diff-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String[] hostResults = new String[ops.size()];
        String[] mountResults = new String[ops.size()];
        try (HostSide host = new HostSide();
                HostSide viaMount = new HostSide(sandbox)) {
            int maxFd = 0;
            for (int i = 0; i < ops.size(); i++) {
                Op op = ops.get(i);
                String h = host.apply(op);
                String v = viaMount.apply(op);
                hostResults[i] = h;
                mountResults[i] = v;
                if (isCreateOverStickySymlink(op, h, v)) {
                    // the known difference: see isCreateOverStickySymlink
                } else if (!h.equals(v)) {
                    throw new AssertionError(
                            "through the FUSE mount: "
                                    + Differential.report(
                                            ops,
                                            hostResults,
                                            mountResults,
                                            "call #"
                                                    + i
                                                    + " differs: "
                                                    + op
                                                    + "\n  host: "
                                                    + h
                                                    + "\n  vfs:  "
                                                    + v));
                }
                if (op.kind() == Op.Kind.OPEN
                        && !Differential.isErrno(h)
                        && !h.equals(Outcomes.SKIPPED)) {
                    maxFd = Math.max(maxFd, Integer.parseInt(h));
                }
            }
            host.closeAll(maxFd + 4);
            viaMount.closeAll(maxFd + 4);
            List<String> hostTree = host.tree();
            List<String> mountTree = viaMount.tree();
            if (!hostTree.equals(mountTree)) {
                throw new AssertionError(
                        "through the FUSE mount: "
                                + Differential.report(
                                        ops,
                                        hostResults,
                                        mountResults,
                                        "every call agreed, but the final trees differ:\n"
                                                + Differential.treeDiff(hostTree, mountTree)));
            }
        } finally {
            removeTree(sandbox);
        }
    }

    /**
     * The known difference, found on 2026-12-02 and explained since: {@code open(O_CREAT)} of an
     * existing symbolic link owned by another user in the sticky, world-writable sandbox is {@code
     * EACCES} on the host ({@code may_create_in_sticky}) and {@code ELOOP} through a mount without
     * {@code default_permissions} (shrunk: {@code symlink("a", "a")}, {@code lchown("a", 1000, 0)},
     * {@code open("a", O_RDWR | O_CREAT | O_NOFOLLOW, 06777)}). The kernel's FUSE client then
     * clears {@code S_ISVTX} from the mode it keeps of an inode, so its own {@code
     * may_create_in_sticky}, which runs before any request is sent, never refuses, and it answers
     * {@code ELOOP} for the link without asking the file system (the FUSE trace shows one {@code
     * LOOKUP} and no {@code CREATE}). With {@code default_permissions} (the caching mount) the
     * answer is the host's. README, "Mount it", lists it.
     */
    private static boolean isCreateOverStickySymlink(Op op, String host, String viaMount) {
        return op.kind() == Op.Kind.OPEN
                && (op.flags() & OpenFlags.O_CREAT) != 0
                && host.equals("EACCES")
                && viaMount.equals("ELOOP");
    }

    private static void removeTree(Path root) {
        // chmod first: a sequence may leave directories without write or search permission
        try (var walk = Files.walk(root)) {
            for (Path p : (Iterable<Path>) walk::iterator) {
                if (Files.isDirectory(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    new ProcessBuilder("chmod", "u+rwx", p.toString())
                            .start()
                            .waitFor(5, TimeUnit.SECONDS);
                }
            }
        } catch (IOException e) {
            // fall through to rm, which reports
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            Process rm = new ProcessBuilder("rm", "-rf", root.toString()).inheritIO().start();
            if (!rm.waitFor(30, TimeUnit.SECONDS) || rm.exitValue() != 0) {
                throw new IllegalStateException("cannot remove " + root + " from the mount");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
