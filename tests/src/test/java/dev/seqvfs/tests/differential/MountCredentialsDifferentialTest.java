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
                "CHDIR " + p("g"),
                "STAT -100 " + p("g/f") + " 0",
                "OPEN -100 " + p("sticky/rootfile") + " 2 0",
                "UNLINK -100 " + p("sticky/rootfile") + " 0",
                "OPEN -100 " + p("mine/x") + " 65 420",
                "CHMOD -100 " + p("ro") + " 438 0",
                "RENAME -100 " + p("ro") + " -100 " + p("sticky/ro") + " 0",
                "MKDIR -100 " + p("sticky/dir") + " 448",
                "OPEN -100 " + p("sticky/dir/x") + " 65 420",
                "ACCESS -100 " + p("g") + " 1 0");

        final List<String> lines;

        Scenario(String... lines) {
            this.lines = List.of(lines);
        }
    }

    @BeforeAll
    static void mountIt() throws Exception {
        String why = HostKernel.unavailableReason();
        Assumptions.assumeTrue(why == null, why);
        mountPoint = Files.createTempDirectory("seqvfs-fuse-creds-");
        vfs = SeqVfs.create(FuseMount.engineConfig(ConfigFactory.load()));
        mount = FuseMount.mount(vfs, mountPoint, List.of("allow_other"));
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
    }

    @ParameterizedTest
    @EnumSource(Scenario.class)
    void callsOfANonRootUser_throughTheMount_matchTheHost(Scenario s) throws Exception {
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

    private static List<String> answers(HostSide side, List<String> lines) {
        List<String> out = new ArrayList<>();
        for (String line : lines) {
            String a = side.call(line);
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
