package dev.seqvfs.tests.embed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.tests.support.ChildJvm;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 17 section 3: an embedder with a 256 MiB heap that writes 1 MiB chunks into a default
 * instance gets {@code ENOSPC}, not a heap run out. In a child JVM ({@code -Xmx256m}, {@link
 * FillHeapMain}), with {@code SeqVfs.create()} and with {@code
 * SeqVfs.create(ConfigFactory.load())}: the write that reaches the limit is cut short and the next
 * one fails with {@code ENOSPC} (the default tmpfs and the JVM's pool hold half the heap); the JVM
 * lives on; once the files are unlinked a {@code mkdir} and a 1 MiB write work, and {@code statfs}
 * is back at its first counts; after {@code close()} the pool is whole again. With the old
 * unlimited default the writes went on until the heap ran out ({@code ENOMEM}, or worse), and this
 * fails.
 */
@Timeout(300)
class SmallHeapTest {
    private static final int MIB = 1 << 20;

    @ParameterizedTest
    @ValueSource(strings = {"create", "load"})
    void writing1MiBChunksUntilAWriteFails_getsAShortCountThenENOSPC_andRecovers(String how)
            throws Exception {
        ChildJvm.Result r =
                ChildJvm.run(
                        List.of("-Xmx256m"),
                        ChildJvm.testClasspath(),
                        FillHeapMain.class.getName(),
                        FillHeapMain.MARKER,
                        10_000,
                        how);
        String all = r.toString();
        assertTrue(r.stdout().contains(FillHeapMain.MARKER), "the child finished: " + all);
        assertTrue(r.exited(), "the child exited after main returned: " + all);
        assertEquals(0, r.status(), all);
        Map<String, String> found = new HashMap<>();
        for (String line : r.stdout().split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                found.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        long heap = Long.parseLong(found.get("heap"));
        long written = Long.parseLong(found.get("written"));
        assertEquals("ENOSPC", found.get("failure"), all);
        assertTrue(
                written > heap / 2 - 2L * MIB && written <= heap / 2,
                "about half the heap was written before ENOSPC: " + all);
        String shorts = found.get("shorts");
        assertTrue(shorts.matches("\\[\\d+\\]"), "exactly one short count before ENOSPC: " + all);
        int shortCount = Integer.parseInt(shorts.substring(1, shorts.length() - 1));
        assertTrue(shortCount > 0 && shortCount < MIB, all);
        assertEquals("0", found.get("full-bfree"), "statfs of the full instance: " + all);
        assertEquals(String.valueOf(MIB), found.get("after"), "a 1 MiB write after: " + all);
        assertTrue(found.get("baseline").startsWith("true"), "statfs back at its counts: " + all);
        assertEquals("true", found.get("pool-after-close"), all);
    }
}
