package dev.seqvfs.nio;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.seqvfs.engine.Fsck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Random sequences of {@code Files} calls over a few names ({@code a}, {@code b}, {@code d/c},
 * {@code d}, {@code l}), run against the JDK's default provider in a fresh {@code /dev/shm}
 * directory and against a fresh SeqVFS file system: every call's rendering ({@link
 * NioDifferentialTest#render}: value, or exception class, files and reason) and the final tree must
 * be equal, and the engine's invariants ({@code Fsck}) must hold afterwards. 300 sequences of up to
 * 25 calls.
 */
class NioDifferentialPropertyTest {
    private static final String[] NAMES = {"a", "b", "d/c", "d", "l", "d/d"};

    /** One call of the vocabulary, on names. */
    record Call(int kind, String x, String y, int n) {
        Object run(Path r) throws IOException {
            Path p = r.resolve(x);
            Path q = r.resolve(y);
            switch (kind) {
                case 0:
                    return Files.createFile(p);
                case 1:
                    return Files.createDirectory(p);
                case 2:
                    return Files.write(p, ("v" + n).getBytes(UTF_8));
                case 3:
                    Files.delete(p);
                    return "deleted";
                case 4:
                    return Files.copy(p, q);
                case 5:
                    return Files.copy(p, q, StandardCopyOption.REPLACE_EXISTING);
                case 6:
                    return Files.move(p, q);
                case 7:
                    return Files.move(p, q, StandardCopyOption.REPLACE_EXISTING);
                case 8:
                    return Files.move(p, q, StandardCopyOption.ATOMIC_MOVE);
                case 9:
                    return Files.createSymbolicLink(p, r.getFileSystem().getPath(y));
                case 10:
                    return Files.createLink(p, q);
                case 11:
                    return Files.readAllBytes(p);
                case 12:
                    return Files.size(p);
                case 13:
                    return Files.isDirectory(p)
                            + " "
                            + Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS);
                case 14:
                    return Files.write(p, ("w" + n).getBytes(UTF_8), StandardOpenOption.APPEND);
                case 15:
                    return Files.deleteIfExists(p);
                case 16:
                    return Files.readSymbolicLink(p);
                default:
                    try (Stream<Path> s = Files.list(p)) {
                        return s.map(z -> z.getFileName().toString())
                                .sorted()
                                .collect(Collectors.toList());
                    }
            }
        }

        @Override
        public String toString() {
            return kind + "(" + x + "," + y + "," + n + ")";
        }
    }

    @Provide
    Arbitrary<List<Call>> sequences() {
        Arbitrary<String> name = Arbitraries.of(NAMES);
        Arbitrary<Call> call =
                Combinators.combine(
                                Arbitraries.integers().between(0, 17),
                                name,
                                name,
                                Arbitraries.integers().between(0, 9))
                        .as(Call::new);
        return call.list().ofMinSize(1).ofMaxSize(25);
    }

    private static List<String> run(List<Call> calls, Path root) {
        List<String> out = new ArrayList<>();
        for (Call c : calls) {
            Object v;
            try {
                v = c.run(root);
            } catch (IOException | RuntimeException e) {
                v = e;
            }
            out.add(c + " -> " + NioDifferentialTest.render(root, v));
        }
        try (Stream<Path> s = Files.walk(root)) {
            out.add(
                    "tree "
                            + s.map(
                                            p ->
                                                    root.relativize(p)
                                                            + (Files.isDirectory(
                                                                            p,
                                                                            LinkOption
                                                                                    .NOFOLLOW_LINKS)
                                                                    ? "/"
                                                                    : ""))
                                    .sorted()
                                    .collect(Collectors.joining(",")));
        } catch (IOException | RuntimeException e) {
            out.add("tree " + NioDifferentialTest.render(root, e));
        }
        return out;
    }

    private static void deleteTree(Path p) throws IOException {
        try (Stream<Path> s = Files.walk(p)) {
            for (Path x : s.sorted((a, b) -> b.compareTo(a)).collect(Collectors.toList())) {
                Files.deleteIfExists(x);
            }
        }
    }

    @Property(tries = 300, edgeCases = EdgeCasesMode.NONE)
    boolean randomSequences_answerAsTheJdkDefaultProviderOnTmpfs(
            @ForAll("sequences") List<Call> calls) throws IOException {
        Path host = Files.createTempDirectory(Path.of("/dev/shm"), "nio-prop-");
        List<String> h;
        try {
            h = run(calls, host);
        } finally {
            deleteTree(host);
        }
        List<String> v;
        try (SeqVfsFileSystem fs = SeqVfsFileSystem.builder().build()) {
            Path r = Files.createDirectory(fs.getPath("/t"));
            v = run(calls, r);
            List<String> problems = Fsck.check(fs.engine(), true);
            if (!problems.isEmpty()) {
                throw new AssertionError("fsck: " + problems);
            }
        }
        if (!h.equals(v)) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < Math.max(h.size(), v.size()); i++) {
                String a = i < h.size() ? h.get(i) : "-";
                String b = i < v.size() ? v.get(i) : "-";
                sb.append(a.equals(b) ? "  " + a : "  host " + a + "\n  vfs  " + b).append('\n');
            }
            throw new AssertionError("differs:\n" + sb);
        }
        return true;
    }
}
