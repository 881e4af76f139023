package dev.seqvfs.tests.embed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.tests.support.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A JVM whose {@code main} returns without {@link dev.seqvfs.engine.SeqVfs#close()} exits on its
 * own: no engine thread keeps it alive (a newcomer found the non-daemon {@code seqvfs-scheduler-1}
 * and Pekko's dispatcher threads holding it forever).
 */
@Timeout(180)
class ForgottenCloseTest {
    @Test
    void mainReturnsWithoutClose_jvmExitsOnItsOwn() throws Exception {
        ChildJvm.Result r =
                ChildJvm.run(
                        ChildJvm.testClasspath(),
                        ForgetCloseMain.class.getName(),
                        ForgetCloseMain.MARKER,
                        5_000);
        assertTrue(r.stdout().contains(ForgetCloseMain.MARKER), "the child ran its calls: " + r);
        assertTrue(r.exited(), "the child JVM was still running 5 s after main returned: " + r);
        assertEquals(0, r.status(), r.toString());
        assertEquals("6\n" + ForgetCloseMain.MARKER + "\n", r.stdout());
    }
}
