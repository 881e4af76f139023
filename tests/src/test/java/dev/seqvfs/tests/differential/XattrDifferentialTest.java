package dev.seqvfs.tests.differential;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.Fsck;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.VfsException;
import dev.seqvfs.protocol.Xattr;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The extended-attribute calls against the host's tmpfs (Linux 6.18 on {@code /dev/shm}, as root
 * and as uid 1000 through {@code setresuid}): every answer (success, the value read, the names
 * listed in their order, or the errno) must be the host's. The fixture, made on both sides:
 *
 * <pre>
 * /f       regular 0644 root        /s -> f        /fifo   FIFO 0644
 * /d/      0755 root                /t/  01777 root (sticky)
 * /u       regular 0600 uid 1000    /p   regular 0600 root
 * </pre>
 */
class XattrDifferentialTest {
    private static final int AT_FDCWD = OpenFlags.AT_FDCWD;
    private static final HexFormat HEX = HexFormat.of();

    @BeforeEach
    void host() {
        String why = HostKernel.unavailableReason();
        Assumptions.assumeTrue(why == null, why);
    }

    /** SeqVFS's side: one instance, a root task and a uid-1000 task; "as" picks one. */
    private static final class Vfs {
        final SeqVfs vfs = SeqVfs.create(ConfigFactory.parseString("seqvfs.proc.mount = off"));
        final VfsTask root = vfs.newTask(Credentials.ROOT);
        final VfsTask user = vfs.newTask(Credentials.of(1000, 1000));
        VfsTask as = root;
    }

    /**
     * One call: the host's request line and the same call on SeqVFS, answering like {@link #host}.
     */
    private record Step(String line, Function<Vfs, String> vfs) {
        @Override
        public String toString() {
            return line;
        }
    }

    private static String s(String v) {
        return v == null ? "n" : "s" + HEX.formatHex(v.getBytes(StandardCharsets.UTF_8));
    }

    private static String value(byte[] v) {
        return "value " + new String(v, StandardCharsets.UTF_8);
    }

    /**
     * The names as a sorted list: Linux 6.18's tmpfs keeps a file's xattrs in a hash table and
     * lists them in its order (neither insertion nor name order: the host listed {@code user.b,
     * user.a, user.0} for three set in the order a, b, 0), while SeqVFS lists them sorted by name;
     * the one accepted difference of this test.
     */
    private static String names(List<String> n) {
        List<String> sorted = new ArrayList<>(n);
        sorted.sort(null);
        return "names " + String.join(",", sorted);
    }

    /** Normalizes the host's answer to a step's kind. */
    private static String host(String verb, String reply) {
        if (reply.startsWith("E ")) {
            return "errno " + reply.substring(2);
        }
        if (verb.equals("GETXATTR")) {
            return value(HEX.parseHex(reply.substring(3)));
        }
        if (verb.equals("LISTXATTR")) {
            String all = new String(HEX.parseHex(reply.substring(3)), StandardCharsets.UTF_8);
            List<String> n = new ArrayList<>();
            for (String x : all.split("\0")) {
                if (!x.isEmpty()) {
                    n.add(x);
                }
            }
            return names(n);
        }
        if (verb.equals("OPEN")) {
            return "fd " + reply.substring(2);
        }
        return "ok";
    }

    private static String run(Function<Vfs, String> call, Vfs v) {
        try {
            return call.apply(v);
        } catch (VfsException e) {
            return "errno " + e.errno().number();
        }
    }

    private static Step set(int how, String target, String name, String val, int flags) {
        byte[] b = val.getBytes(StandardCharsets.UTF_8);
        return new Step(
                "SETXATTR " + how + " " + s(target) + " " + s(name) + " " + s(val) + " " + flags,
                v -> {
                    if (how == 0) {
                        v.as.setxattr(target, name, b, flags);
                    } else if (how == 1) {
                        v.as.lsetxattr(target, name, b, flags);
                    } else {
                        v.as.fsetxattr(Integer.parseInt(target), name, b, flags);
                    }
                    return "ok";
                });
    }

    private static Step set(String target, String name, String val) {
        return set(0, target, name, val, 0);
    }

    private static Step get(int how, String target, String name) {
        return new Step(
                "GETXATTR " + how + " " + s(target) + " " + s(name),
                v ->
                        value(
                                how == 0
                                        ? v.as.getxattr(target, name)
                                        : how == 1
                                                ? v.as.lgetxattr(target, name)
                                                : v.as.fgetxattr(Integer.parseInt(target), name)));
    }

    private static Step get(String target, String name) {
        return get(0, target, name);
    }

    private static Step list(int how, String target) {
        return new Step(
                "LISTXATTR " + how + " " + s(target),
                v ->
                        names(
                                how == 0
                                        ? v.as.listxattr(target)
                                        : how == 1
                                                ? v.as.llistxattr(target)
                                                : v.as.flistxattr(Integer.parseInt(target))));
    }

    private static Step remove(int how, String target, String name) {
        return new Step(
                "REMOVEXATTR " + how + " " + s(target) + " " + s(name),
                v -> {
                    if (how == 0) {
                        v.as.removexattr(target, name);
                    } else if (how == 1) {
                        v.as.lremovexattr(target, name);
                    } else {
                        v.as.fremovexattr(Integer.parseInt(target), name);
                    }
                    return "ok";
                });
    }

    private static Step asUser(boolean user) {
        return new Step(
                user ? "SETEUID 1000 1000" : "SETEUID 0 0",
                v -> {
                    v.as = user ? v.user : v.root;
                    return "ok";
                });
    }

    private static Step open(String path, int flags) {
        return new Step(
                "OPEN " + AT_FDCWD + " " + s(path) + " " + flags + " 0",
                v -> "fd " + v.root.open(path, flags, 0));
    }

    private static Step close(int fd) {
        return new Step(
                "CLOSE " + fd,
                v -> {
                    v.root.close(fd);
                    return "ok";
                });
    }

    /** The fixture above, as host lines and SeqVFS calls. */
    private static List<Step> fixture() {
        List<Step> f = new ArrayList<>();
        f.add(
                new Step(
                        "OPEN -100 "
                                + s("f")
                                + " "
                                + (OpenFlags.O_CREAT | OpenFlags.O_WRONLY)
                                + " 420",
                        v ->
                                "fd "
                                        + v.root.open(
                                                "f",
                                                OpenFlags.O_CREAT | OpenFlags.O_WRONLY,
                                                0644)));
        f.add(close(0));
        f.add(
                new Step(
                        "SYMLINK " + s("f") + " -100 " + s("s"),
                        v -> {
                            v.root.symlink("f", "s");
                            return "ok";
                        }));
        f.add(
                new Step(
                        "MKNOD -100 " + s("fifo") + " " + (0010000 | 0644),
                        v -> {
                            v.root.mknod("fifo", 0010000 | 0644, 0);
                            return "ok";
                        }));
        f.add(
                new Step(
                        "MKDIR -100 " + s("d") + " 493",
                        v -> {
                            v.root.mkdir("d", 0755);
                            return "ok";
                        }));
        f.add(
                new Step(
                        "MKDIR -100 " + s("t") + " 1023",
                        v -> {
                            v.root.mkdir("t", 01777);
                            return "ok";
                        }));
        f.add(
                new Step(
                        "CHMOD -100 " + s("t") + " 1023 0",
                        v -> {
                            v.root.chmod("t", 01777);
                            return "ok";
                        }));
        for (String p : new String[] {"u", "p"}) {
            f.add(
                    new Step(
                            "OPEN -100 "
                                    + s(p)
                                    + " "
                                    + (OpenFlags.O_CREAT | OpenFlags.O_WRONLY)
                                    + " 384",
                            v ->
                                    "fd "
                                            + v.root.open(
                                                    p,
                                                    OpenFlags.O_CREAT | OpenFlags.O_WRONLY,
                                                    0600)));
            f.add(close(0));
        }
        f.add(
                new Step(
                        "CHOWN -100 " + s("u") + " 1000 1000 0",
                        v -> {
                            v.root.chown("u", 1000, 1000);
                            return "ok";
                        }));
        return f;
    }

    private static void compare(Step... steps) {
        List<Step> all = fixture();
        all.addAll(List.of(steps));
        all.add(asUser(false));
        List<String> transcript = new ArrayList<>();
        List<String> mismatches = new ArrayList<>();
        Vfs v = new Vfs();
        try (HostSide host = new HostSide()) {
            for (Step st : all) {
                String verb = st.line().substring(0, st.line().indexOf(' '));
                String h = host(verb, host.call(st.line()));
                String w = run(st.vfs(), v);
                String line = st + " -> host " + h + (h.equals(w) ? "" : ", vfs " + w);
                transcript.add(line);
                if (!h.equals(w)) {
                    mismatches.add(line);
                }
            }
            assertEquals(List.of(), Fsck.check(v.vfs, false));
        } finally {
            v.user.close();
            v.root.close();
            v.vfs.close();
        }
        assertEquals(List.of(), mismatches, String.join("\n", transcript));
    }

    @Test
    void setGetListRemove_withCreateAndReplaceFlags_likeTheHost() {
        compare(
                set("f", "user.a", "v1"),
                get("f", "user.a"),
                set(0, "f", "user.a", "v2", Xattr.XATTR_CREATE),
                set(0, "f", "user.b", "x", Xattr.XATTR_REPLACE),
                set("f", "user.b", ""),
                get("f", "user.b"),
                set("f", "user.0", "first"),
                list(0, "f"),
                set(0, "f", "user.a", "v3", Xattr.XATTR_REPLACE),
                get("f", "user.a"),
                set(0, "f", "user.c", "x", Xattr.XATTR_CREATE | Xattr.XATTR_REPLACE),
                set(0, "f", "user.c", "x", 4),
                remove(0, "f", "user.b"),
                remove(0, "f", "user.b"),
                get("f", "user.b"),
                get("f", "user.none"),
                list(0, "f"),
                set("d", "user.dir", "yes"),
                get("d", "user.dir"),
                list(0, "d"));
    }

    @Test
    void namesAndSizes_rangeAndTooBigAndUnsupportedNamespaces_likeTheHost() {
        compare(
                set("f", "", "x"),
                set("f", "user." + "n".repeat(250), "max name"),
                get("f", "user." + "n".repeat(250)),
                set("f", "user." + "n".repeat(251), "too long"),
                get("f", "user." + "n".repeat(251)),
                get("f", ""),
                set("f", "user.big", "b".repeat(Xattr.XATTR_SIZE_MAX)),
                set("f", "user.toobig", "b".repeat(Xattr.XATTR_SIZE_MAX + 1)),
                set("f", "user.", "x"),
                get("f", "user."),
                set("f", "foo.bar", "x"),
                set("f", "nodot", "x"),
                get("f", "foo.bar"),
                remove(0, "f", "foo.bar"),
                set("f", "system.foo", "x"),
                set("f", "trusted.t", "root only"),
                get("f", "trusted.t"),
                list(0, "f"),
                set("nope", "user.a", "x"),
                get("nope", "user.a"),
                list(0, "nope"),
                set("f/x", "user.a", "x"));
    }

    @Test
    void symlinksFifosAndDescriptors_likeTheHost() {
        compare(
                set("s", "user.via", "followed"),
                get("f", "user.via"),
                set(1, "s", "user.link", "x", 0),
                get(1, "s", "user.via"),
                list(1, "s"),
                remove(1, "s", "user.via"),
                set("fifo", "user.a", "x"),
                get("fifo", "user.a"),
                list(0, "fifo"),
                set("fifo", "trusted.a", "x"),
                get("fifo", "trusted.a"),
                open("f", OpenFlags.O_RDONLY),
                set(2, "0", "user.byfd", "fd", 0),
                get(2, "0", "user.byfd"),
                list(2, "0"),
                remove(2, "0", "user.byfd"),
                close(0),
                open("f", OpenFlags.O_PATH),
                set(2, "0", "user.path", "x", 0),
                get(2, "0", "user.via"),
                list(2, "0"),
                close(0),
                set(2, "7", "user.bad", "x", 0),
                get(2, "7", "user.bad"));
    }

    @Test
    void permissions_ofAnUnprivilegedCaller_likeTheHost() {
        compare(
                set("f", "user.a", "root's"),
                set("f", "trusted.t", "secret"),
                set("p", "user.p", "private"),
                set("t", "user.t", "sticky"),
                asUser(true),
                set("u", "user.mine", "ok"),
                get("u", "user.mine"),
                get("f", "user.a"),
                set("f", "user.z", "no"),
                remove(0, "f", "user.a"),
                get("f", "trusted.t"),
                list(0, "f"),
                set("f", "trusted.y", "no"),
                set("u", "trusted.y", "no"),
                set("u", "security.y", "no"),
                get("p", "user.p"),
                list(0, "p"),
                set("t", "user.t", "no"),
                get("t", "user.t"),
                set("d", "user.q", "no"),
                set("u", "foo.bar", "x"),
                set("f", "foo.bar", "x"),
                asUser(false),
                set("u", "security.y", "root"),
                get("u", "security.y"),
                list(0, "u"));
    }
}
