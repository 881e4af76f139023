package dev.seqvfs.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Every call of the blocking view has its asynchronous twin: same name, same parameters, a {@code
 * CompletableFuture} of the blocking call's result (boxed; {@code Void} for {@code void}). A call
 * added to {@link VfsTask} without its twin in {@link AsyncVfsTask} fails the build here.
 */
class AsyncVfsTaskTwinsTest {
    /** The task's lifecycle and identity: no twin (they are not file-system calls). */
    private static final Set<String> LIFECYCLE =
            Set.of("fork", "newThread", "exec", "close", "async", "pid", "cred");

    @Test
    void everyBlockingCall_hasAnAsyncTwinWithTheSameParameters_returningAFutureOfItsResult()
            throws Exception {
        List<String> missing = new ArrayList<>();
        int calls = 0;
        for (Method m : VfsTask.class.getDeclaredMethods()) {
            if (!Modifier.isPublic(m.getModifiers())
                    || Modifier.isStatic(m.getModifiers())
                    || LIFECYCLE.contains(m.getName())) {
                continue;
            }
            calls++;
            Method twin;
            try {
                twin = AsyncVfsTask.class.getMethod(m.getName(), m.getParameterTypes());
            } catch (NoSuchMethodException e) {
                missing.add(m.toGenericString());
                continue;
            }
            assertEquals(CompletableFuture.class, twin.getReturnType(), twin.toGenericString());
            Type arg =
                    ((ParameterizedType) twin.getGenericReturnType()).getActualTypeArguments()[0];
            assertEquals(
                    boxed(m.getGenericReturnType()).getTypeName(),
                    arg.getTypeName(),
                    twin.toGenericString());
        }
        assertEquals(List.of(), missing, "blocking calls without an async twin");
        assertTrue(calls > 60, "the table is the system-call table: " + calls);
    }

    @Test
    void everyAsyncCall_isATwinOfABlockingOne() {
        List<String> extra = new ArrayList<>();
        for (Method m : AsyncVfsTask.class.getDeclaredMethods()) {
            if (!Modifier.isPublic(m.getModifiers()) || LIFECYCLE.contains(m.getName())) {
                continue;
            }
            try {
                VfsTask.class.getMethod(m.getName(), m.getParameterTypes());
            } catch (NoSuchMethodException e) {
                extra.add(m.toGenericString());
            }
        }
        assertEquals(List.of(), extra, "async calls without a blocking original");
    }

    private static Type boxed(Type t) {
        if (t == void.class) {
            return Void.class;
        }
        if (t == int.class) {
            return Integer.class;
        }
        if (t == long.class) {
            return Long.class;
        }
        if (t == boolean.class) {
            return Boolean.class;
        }
        return t;
    }
}
