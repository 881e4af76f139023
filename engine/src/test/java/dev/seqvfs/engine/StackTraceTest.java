package dev.seqvfs.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.Syscall;
import dev.seqvfs.protocol.VfsException;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A {@code VfsException} thrown to a task's caller carries the caller's stack (so a test failure
 * says where the call was made), whether the error was found on the caller's thread (a lock-free
 * walk) or answered by an actor (a message call); with {@code seqvfs.errors.stack-traces = off} it
 * carries none. The message names the call, the path and the errno. An async call's failure carries
 * no trace of its own (it is made on whatever thread finished the call); {@code get()} and {@code
 * join()} wrap it in an exception made on the waiting thread, as {@link AsyncVfsTask} says.
 */
class StackTraceTest {
    private static boolean mentionsThisTest(Throwable e) {
        return Arrays.stream(e.getStackTrace())
                .anyMatch(f -> f.getClassName().equals(StackTraceTest.class.getName()));
    }

    @Test
    void errorFromAWalk_andFromAnActor_carryTheCallersStack() {
        try (SeqVfs vfs = SeqVfs.create(ConfigFactory.parseString("seqvfs.proc.mount = off"))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            VfsException walk = assertThrows(VfsException.class, () -> t.stat("/missing"));
            assertEquals(Errno.ENOENT, walk.errno());
            assertEquals(Syscall.STAT, walk.operation());
            assertEquals(
                    "stat \"/missing\": ENOENT (No such file or directory)", walk.getMessage());
            assertTrue(mentionsThisTest(walk), Arrays.toString(walk.getStackTrace()));
            t.mkdir("/d", 0755);
            VfsException actor = assertThrows(VfsException.class, () -> t.mkdir("/d", 0755));
            assertEquals(Errno.EEXIST, actor.errno());
            assertTrue(mentionsThisTest(actor), Arrays.toString(actor.getStackTrace()));
        }
    }

    @Test
    void asyncFailure_carriesNoTraceOfItsOwn_getAndJoinWrapItInTheWaitersStack() throws Exception {
        try (SeqVfs vfs = SeqVfs.create(ConfigFactory.parseString("seqvfs.proc.mount = off"))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            t.mkdir("/d", 0755);
            for (CompletableFuture<?> f :
                    List.of(t.async().mkdir("/d", 0755), t.async().stat("/missing"))) {
                ExecutionException got =
                        assertThrows(ExecutionException.class, () -> f.get(5, TimeUnit.SECONDS));
                VfsException e = assertInstanceOf(VfsException.class, got.getCause());
                assertEquals(0, e.getStackTrace().length, Arrays.toString(e.getStackTrace()));
                assertTrue(mentionsThisTest(got), Arrays.toString(got.getStackTrace()));
                CompletionException joined = assertThrows(CompletionException.class, f::join);
                assertSame(e, joined.getCause());
                assertTrue(mentionsThisTest(joined), Arrays.toString(joined.getStackTrace()));
            }
        }
    }

    @Test
    void withStackTracesOff_anErrorCarriesNone() {
        try (SeqVfs vfs =
                SeqVfs.create(
                        ConfigFactory.parseString(
                                "seqvfs.proc.mount = off\nseqvfs.errors.stack-traces = off"))) {
            VfsTask t = vfs.newTask(Credentials.ROOT);
            VfsException e = assertThrows(VfsException.class, () -> t.stat("/missing"));
            assertEquals(0, e.getStackTrace().length);
            assertEquals(Errno.ENOENT, e.errno());
        }
    }
}
