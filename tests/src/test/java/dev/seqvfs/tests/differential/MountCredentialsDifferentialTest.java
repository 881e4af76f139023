package dev.seqvfs.tests.differential;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.Fsck;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.fuse.FuseMount;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Specifies that the engine's permission checks see the host caller's identity through the mount:
 * each scenario makes a tree as root, then its {@code hostops} server becomes a non-root user
 * ({@code SETCRED uid gid groups...}) and makes calls that the kernel allows or refuses by mode,
 * owner, group membership (supplementary groups included) and the sticky bit. The scenario runs on
 * {@code /dev/shm} and inside a mount made with {@code allow_other} (without it the kernel lets no
 * other user in); every answer must be equal (a {@code STAT}'s inode number left out), then the
 * final trees.
 */
class MountCredentialsDifferentialTest {
    private static SeqVfs vfs;
    private static FuseMount mount;
    private static Path mountPoint;

    /**
     * A second mount, of an instance of its own, with the kernel caching names and attributes and
     * checking permissions itself ({@link FuseMount#CACHED_OPTIONS}, {@code seqvfs mount}'s
     * default): a cached path is walked without the engine seeing it, so its answers must still be
     * the host's.
     */
    private static SeqVfs cachedVfs;

    private static FuseMount cachedMount;
    private static Path cachedMountPoint;

    private static String p(String path) {
        return HostSide.arg(path);
    }

    /** The tree every scenario starts from, made as root (modes and owners in the lines). */
    private static final List<String> TREE =
            List.of(
                    "UMASK 0",
                    "MKDIR -100 " + p("d") + " 493", // 0755 root
                    "OPEN -100 " + p("d/rootfile") + " 65 420", // 0644 root
                    "MKDIR -100 " + p("g") + " 504", // 0770 root:2000
                    "CHOWN -100 " + p("g") + " 0 2000 0",
                    "OPEN -100 " + p("g/f") + " 65 432", // 0660 root:2000
                    "CHOWN -100 " + p("g/f") + " 0 2000 0",
                    "MKDIR -100 " + p("sticky") + " 1023", // 01777
                    "OPEN -100 " + p("sticky/rootfile") + " 65 438", // 0666 root
                    "MKDIR -100 " + p("mine") + " 493",
                    "CHOWN -100 " + p("mine") + " 1000 1000 0",
                    "OPEN -100 " + p("ro") + " 65 292", // 0444 1000:1000
                    "CHOWN -100 " + p("ro") + " 1000 1000 0",
                    "OPEN -100 " + p("secret") + " 65 384"); // 0600 root

    /** The scenarios: who the server becomes, then what it tries. */
    enum Scenario {
        /** uid 1000 in group 2000 (a supplementary group): mode bits, owner rules, sticky. */
        MEMBER_OF_GROUP_2000(
                "SETCRED 1000 1000 2000",
                "OPEN -100 " + p("secret") + " 0 0",
                "OPEN -100 " + p("g") + " 65536 0", // O_DIRECTORY, through the group: allowed
                "OPEN -100 " + p("d/rootfile") + " 1 0",
                "OPEN -100 " + p("d/new") + " 65 420",
                "OPEN -100 " + p("g/f") + " 2 0",
                "OPEN -100 " + p("g/new") + " 65 416",
                "STAT -100 " + p("g/new") + " 256",
                "UNLINK -100 " + p("sticky/rootfile") + " 0",
                "OPEN -100 " + p("sticky/mine") + " 65 420",
                "UNLINK -100 " + p("sticky/mine") + " 0",
                "CHMOD -100 " + p("secret") + " 511 0",
                "CHOWN -100 " + p("mine") + " 0 0 0",
                "CHOWN -100 " + p("mine") + " 1000 2000 0",
                "CHOWN -100 " + p("mine") + " 1000 3000 0",
                "CHMOD -100 " + p("mine") + " 448 0",
                "OPEN -100 " + p("ro") + " 1 0",
                "CHMOD -100 " + p("ro") + " 420 0",
                "OPEN -100 " + p("ro") + " 1 0",
                "ACCESS -100 " + p("secret") + " 4 0",
                "ACCESS -100 " + p("g/f") + " 2 0",
                "ACCESS -100 " + p("d") + " 2 0",
                "UTIMENS -100 " + p("secret") + " 3 0",
                "UTIMENS -100 " + p("secret") + " 2 0",
                "UTIMENS -100 " + p("sticky/rootfile") + " 2 0",
                "MKDIR -100 " + p("mine/sub") + " 493",
                "RENAME -100 " + p("mine/sub") + " -100 " + p("d/sub") + " 0",
                "RENAME -100 " + p("mine/sub") + " -100 " + p("g/sub") + " 0",
                "UNLINK -100 " + p("g/f") + " 0",
                "SYMLINK " + p("secret") + " -100 " + p("mine/l"),
                "OPEN -100 " + p("mine/l") + " 0 0",
                "CHDIR " + p("g"),
                "OPEN -100 " + p("f") + " 0 0"),
        /** uid 1001 in no group: the group's directory and file are closed to it. */
        OUTSIDER(
                "SETCRED 1001 1001",
                "OPEN -100 " + p("g/f") + " 0 0",
                "OPEN -100 " + p("g") + " 65536 0", // O_DIRECTORY of a 0770 directory: EACCES
                "CHDIR " + p("g"),
                "STAT -100 " + p("g/f") + " 0",
                "OPEN -100 " + p("sticky/rootfile") + " 2 0",
                "UNLINK -100 " + p("sticky/rootfile") + " 0",
                "OPEN -100 " + p("mine/x") + " 65 420",
                "CHMOD -100 " + p("ro") + " 438 0",
                "RENAME -100 " + p("ro") + " -100 " + p("sticky/ro") + " 0",
                "MKDIR -100 " + p("sticky/dir") + " 448",
                "OPEN -100 " + p("sticky/dir/x") + " 65 420",
                "ACCESS -100 " + p("g") + " 1 0"),
        /**
         * pjdfstest's {@code chmod/12.t}: a write or truncate by a process that does not own a
         * set-id file clears the set-user-ID bit, and the set-group-ID bit when group execute is
         * set (write(2), truncate(2)); the kernel's FUSE client asks for that as a {@code chmod} in
         * the writer's name, which the mount once refused with {@code EPERM} (and the write with
         * it). {@code $FD} is the descriptor the line before opened.
         */
        SET_ID_BITS_CLEARED_BY_A_NON_OWNERS_WRITE(setIdLines()),
        /**
         * pjdfstest's {@code 03.t} cases: a relative path just under {@code PATH_MAX} works
         * wherever the working directory is, though the absolute path libfuse hands the file system
         * (the mount's sandbox in front) is longer than {@code PATH_MAX}; one byte more is {@code
         * ENAMETOOLONG} from the kernel. A directory the caller cannot search in the head of such a
         * path still denies it.
         */
        PATHS_NEAR_PATH_MAX_UNDER_A_LONG_MOUNT_PREFIX(longPathLines());

        final List<String> lines;

        Scenario(String... lines) {
            this.lines = List.of(lines);
        }
    }

    /**
     * The lines of {@link Scenario#SET_ID_BITS_CLEARED_BY_A_NON_OWNERS_WRITE}: root makes set-id
     * files (06777, 04777, 02777, 02767 whose set-group-ID bit stays, one owned by the writer, one
     * not writable by others), then uid 65534 writes, truncates and chmods them, each followed by a
     * {@code STAT}.
     */
    private static String[] setIdLines() {
        List<String> l = new ArrayList<>();
        String[][] made = { // name, mode
            {"s6", "3583"},
            {"s4", "2559"},
            {"s2", "1535"},
            {"s2nox", "1527"},
            {"t6", "3583"},
            {"f6", "3583"},
            {"mine6", "3583"},
            {"ro6", "3565"}
        };
        for (String[] m : made) {
            l.add("OPEN -100 " + p(m[0]) + " 65 511");
            if (m[0].equals("mine6")) {
                l.add("CHOWN -100 " + p(m[0]) + " 65534 65534 0");
            }
            l.add("CHMOD -100 " + p(m[0]) + " " + m[1] + " 0");
        }
        l.add("SETCRED 65534 65534");
        String[][] writes = { // name, open flags (O_WRONLY, O_RDWR), then what is done
            {"s6", "1", "WRITE $FD 1"},
            {"s4", "2", "WRITE $FD 1"},
            {"s2", "1", "WRITE $FD 1"},
            {"s2nox", "1", "WRITE $FD 1"},
            {"f6", "1", "FTRUNCATE $FD 0"},
            {"mine6", "1", "WRITE $FD 1"}
        };
        for (String[] w : writes) {
            l.add("OPEN -100 " + p(w[0]) + " " + w[1] + " 0");
            l.add(w[2]);
            l.add("STAT -100 " + p(w[0]) + " 0");
        }
        l.add("TRUNCATE " + p("t6") + " 0");
        l.add("STAT -100 " + p("t6") + " 0");
        l.add("CHMOD -100 " + p("ro6") + " 493 0"); // a non-owner's chmod stays EPERM
        l.add("OPEN -100 " + p("ro6") + " 1 0");
        l.add("STAT -100 " + p("ro6") + " 0");
        return l.toArray(String[]::new);
    }

    /**
     * The lines of {@link Scenario#PATHS_NEAR_PATH_MAX_UNDER_A_LONG_MOUNT_PREFIX}: 16 directories
     * of 250-byte names and names at the end that bring the relative path to 4,086 bytes, every
     * call on them, then everything removed (the final trees are compared by absolute paths, which
     * could not reach it).
     */
    private static String[] longPathLines() {
        List<String> l = new ArrayList<>();
        StringBuilder dir = new StringBuilder();
        List<String> dirs = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            if (dir.length() > 0) {
                dir.append('/');
            }
            dir.append(String.valueOf((char) ('a' + i)).repeat(250));
            dirs.add(dir.toString());
            l.add("MKDIR -100 " + p(dir.toString()) + " 493");
        }
        String d = dir + "/"; // 4,016 bytes
        String f = d + "f".repeat(70); // 4,086 bytes: under PATH_MAX (4,096 with its NUL)
        String g = d + "g".repeat(70);
        String s = d + "s".repeat(70);
        String n = d + "n".repeat(70);
        String sub = d + "x".repeat(70);
        l.addAll(
                List.of(
                        "OPEN -100 " + p(f) + " 65 420",
                        "STAT -100 " + p(f) + " 256",
                        "CHMOD -100 " + p(f) + " 384 0",
                        "CHOWN -100 " + p(f) + " 1000 1000 256",
                        "UTIMENS -100 " + p(f) + " 2 256",
                        "TRUNCATE " + p(f) + " 100",
                        "STAT -100 " + p(f) + " 0",
                        "ACCESS -100 " + p(f) + " 4 0",
                        "LINK -100 " + p(f) + " -100 " + p(g) + " 0",
                        "RENAME -100 " + p(g) + " -100 " + p(n) + " 0",
                        "SYMLINK " + p("f".repeat(70)) + " -100 " + p(s),
                        "READLINK -100 " + p(s),
                        "STAT -100 " + p(s) + " 0",
                        "MKNOD -100 " + p(d + "p".repeat(70)) + " 4516", // S_IFIFO | 0644
                        "MKDIR -100 " + p(sub) + " 493",
                        "RENAME -100 " + p(sub) + " -100 " + p("moved") + " 0",
                        "RENAME -100 " + p("moved") + " -100 " + p(sub) + " 0",
                        "OPEN -100 " + p(f + "x".repeat(10)) + " 65 420", // 4,096 bytes
                        "STAT -100 " + p(n + "x".repeat(10)) + " 0",
                        "CHMOD -100 " + p(dirs.get(2)) + " 448 0", // 0700: others cannot search
                        "SETEUID 65534 65534", // effective ids only: it comes back below
                        "STAT -100 " + p(f) + " 0",
                        "OPEN -100 " + p(d + "y") + " 65 420",
                        "SETEUID 0 0",
                        "CHMOD -100 " + p(dirs.get(2)) + " 493 0",
                        "CHMOD -100 " + p(dirs.get(15)) + " 448 0", // the head's last directory
                        "SETEUID 65534 65534",
                        "STAT -100 " + p(f) + " 0",
                        "SETEUID 0 0",
                        "UNLINK -100 " + p(f) + " 0",
                        "UNLINK -100 " + p(n) + " 0",
                        "UNLINK -100 " + p(s) + " 0",
                        "UNLINK -100 " + p(d + "p".repeat(70)) + " 0",
                        "UNLINK -100 " + p(sub) + " 512"));
        for (int i = dirs.size() - 1; i >= 0; i--) {
            l.add("UNLINK -100 " + p(dirs.get(i)) + " 512");
        }
        return l.toArray(String[]::new);
    }

    @BeforeAll
    static void mountIt() throws Exception {
        String why = HostKernel.unavailableReason();
        Assumptions.assumeTrue(why == null, why);
        mountPoint = Files.createTempDirectory("seqvfs-fuse-creds-");
        vfs = SeqVfs.create(FuseMount.engineConfig(ConfigFactory.load()));
        mount = FuseMount.mount(vfs, mountPoint, List.of("allow_other"));
        cachedMountPoint = Files.createTempDirectory("seqvfs-fuse-creds-cached-");
        cachedVfs = SeqVfs.create(FuseMount.engineConfig(ConfigFactory.load()));
        cachedMount =
                FuseMount.mount(
                        cachedVfs,
                        cachedMountPoint,
                        List.of("allow_other", FuseMount.CACHED_OPTIONS));
    }

    @AfterAll
    static void unmountIt() throws Exception {
        if (mount == null) {
            return;
        }
        try {
            mount.close();
            assertEquals(List.of(), Fsck.check(vfs, true));
        } finally {
            vfs.close();
            Files.deleteIfExists(mountPoint);
        }
        if (cachedMount == null) {
            return;
        }
        try {
            cachedMount.close();
            assertEquals(List.of(), Fsck.check(cachedVfs, true));
        } finally {
            cachedVfs.close();
            Files.deleteIfExists(cachedMountPoint);
        }
    }

    @ParameterizedTest
    @EnumSource(Scenario.class)
    void callsOfANonRootUser_throughTheMount_matchTheHost(Scenario s) throws Exception {
        compare(s, mountPoint);
    }

    @ParameterizedTest
    @EnumSource(Scenario.class)
    void callsOfANonRootUser_throughACachingMount_matchTheHost(Scenario s) throws Exception {
        compare(s, cachedMountPoint);
    }

    private static void compare(Scenario s, Path mountPoint) throws Exception {
        List<String> lines = new ArrayList<>(TREE);
        lines.addAll(s.lines);
        List<String> host;
        List<String> hostTree;
        try (HostSide h = new HostSide()) {
            host = answers(h, lines);
            hostTree = h.tree();
        }
        Path sandbox = Files.createTempDirectory(mountPoint, "creds-");
        List<String> viaMount;
        List<String> mountTree;
        try (HostSide m = new HostSide(sandbox)) {
            viaMount = answers(m, lines);
            mountTree = m.tree();
        } finally {
            new ProcessBuilder("rm", "-rf", sandbox.toString()).inheritIO().start().waitFor();
        }
        assertEquals(host, viaMount, s + ": answers, line by line, host against the mount");
        assertEquals(hostTree, mountTree, s + ": the final trees");
    }

    /**
     * Names that are not valid UTF-8 are their bytes through the mount, as on tmpfs: {@code
     * caf\xe9} and {@code caf\xe8} are two files, and every call given such a name, symbolic link
     * target or extended attribute name answers as on the host. (The libfuse 2 transport got paths
     * decoded by jnr-fuse, with U+FFFD for each byte that is not UTF-8: the two names were one
     * file, then every such call was {@code EILSEQ}.)
     */
    @Test
    void namesThatAreNotUtf8_throughTheMount_areTheirBytes_asOnTheHost() throws Exception {
        // (no tree comparison: java.nio cannot walk names that are not UTF-8; a STAT of each)
        List<String> lines =
                List.of(
                        "OPEN -100 s636166e9 65 420", // caf\xe9
                        "WRITE $FD 1",
                        "OPEN -100 s636166e8 65 420", // caf\xe8: another file, still empty
                        "STAT -100 s636166e9 0",
                        "STAT -100 s636166e8 0",
                        "MKDIR -100 s64e9 493",
                        "MKNOD -100 s66e9 4516",
                        "SYMLINK s78e9 -100 s6c", // target x\xe9
                        "READLINK -100 s6c",
                        "OPEN -100 s636166c3a9 65 420", // "café", valid UTF-8
                        "RENAME -100 s636166c3a9 -100 s64e92f6e 0", // into d\xe9/n
                        "LINK -100 s636166e8 -100 s64e92f6ce8 0", // d\xe9/l\xe8
                        "STAT -100 s64e92f6ce8 0",
                        "UNLINK -100 s636166e8 0",
                        "STAT -100 s636166e8 0",
                        "STAT -100 s66e9 0",
                        "STAT -100 s64e92f6e 0",
                        "SETXATTR 0 s636166e9 s757365722e78e9 s76 0", // user.x\xe9 = "v"
                        "GETXATTR 0 s636166e9 s757365722e78e9",
                        "LISTXATTR 0 s636166e9",
                        // removed again: the host side's cleanup walks with java.nio too
                        "UNLINK -100 s636166e9 0",
                        "UNLINK -100 s66e9 0",
                        "UNLINK -100 s6c 0",
                        "UNLINK -100 s64e92f6e 0",
                        "UNLINK -100 s64e92f6ce8 0",
                        "UNLINK -100 s64e9 512");
        List<String> host;
        try (HostSide h = new HostSide()) {
            host = answers(h, lines);
        }
        Path sandbox = Files.createTempDirectory(mountPoint, "names-");
        List<String> viaMount;
        try (HostSide m = new HostSide(sandbox)) {
            viaMount = answers(m, lines);
        } finally {
            new ProcessBuilder("rm", "-rf", sandbox.toString()).inheritIO().start().waitFor();
        }
        assertEquals(host, viaMount, "answers, line by line, host against the mount");
    }

    private static List<String> answers(HostSide side, List<String> lines) {
        List<String> out = new ArrayList<>();
        String lastFd = "-1";
        for (String line : lines) {
            String a = side.call(line.replace("$FD", lastFd));
            if (line.startsWith("OPEN ")) {
                lastFd = a.startsWith("O ") ? a.substring(2) : "-1";
            }
            if (line.startsWith("STAT ") && a.startsWith("O ")) {
                String[] f = a.split(" ");
                f[6] = "ino"; // inode numbers differ between the two file systems
                a = String.join(" ", f);
            }
            out.add(line + " -> " + a);
        }
        return out;
    }
}
