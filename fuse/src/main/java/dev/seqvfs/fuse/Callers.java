package dev.seqvfs.fuse;

import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The engine tasks FUSE requests run as: one {@link VfsTask} per distinct set of credentials (uid,
 * gid, supplementary groups) of the requesting processes, made on first use, so that the engine's
 * permission checks see the caller's identity.
 *
 * <p>FUSE gives the caller's fsuid, fsgid and pid ({@code fuse_get_context}); the supplementary
 * groups are read from {@code /proc/PID/status} ("Groups:"), as libfuse's {@code fuse_getgroups}
 * does, except for root (uid 0), whose groups decide no permission check. Each task's umask is 0:
 * the kernel has already applied the caller's umask to the modes it sends.
 *
 * <p><b>Thread-safety.</b> Safe for concurrent use by libfuse's worker threads; the map of tasks is
 * a {@link ConcurrentHashMap}, and a {@code VfsTask} may be used by several threads at once.
 */
final class Callers {
    private final Function<Credentials, VfsTask> factory;
    private final ConcurrentHashMap<Credentials, VfsTask> tasks = new ConcurrentHashMap<>();

    /** Tasks of their own, each with its own descriptor table ({@code SeqVfs.newTask}). */
    Callers(SeqVfs vfs) {
        this.factory = vfs::newTask;
    }

    /**
     * Threads of {@code server} ({@link VfsTask#newThread(Credentials)}): one descriptor table, the
     * server's, shared by every caller's task, so a descriptor one opened is usable by all.
     */
    Callers(VfsTask server) {
        this.factory = server::newThread;
    }

    /**
     * Returns the task for a caller with fsuid {@code uid}, fsgid {@code gid}, process {@code pid}.
     */
    VfsTask task(int uid, int gid, int pid) {
        Credentials cred =
                uid == 0 ? new Credentials(0, gid, null) : new Credentials(uid, gid, groups(pid));
        VfsTask t = tasks.get(cred);
        return t != null ? t : tasks.computeIfAbsent(cred, this::newTask);
    }

    private VfsTask newTask(Credentials cred) {
        VfsTask t = factory.apply(cred);
        t.umask(0);
        return t;
    }

    /** Returns the number of tasks made so far (one per distinct set of credentials). */
    int taskCount() {
        return tasks.size();
    }

    /** Ends every task (closing the descriptors they still hold). */
    void closeAll() {
        for (VfsTask t : tasks.values()) {
            t.close();
        }
        tasks.clear();
    }

    /**
     * Returns the supplementary groups of process {@code pid} ({@code /proc/PID/status}), or none
     * if the process is gone or {@code pid} is 0 (a request the kernel made itself).
     */
    static int[] groups(int pid) {
        if (pid <= 0) {
            return new int[0];
        }
        List<String> lines;
        try {
            lines =
                    Files.readAllLines(
                            Path.of("/proc", Integer.toString(pid), "status"),
                            StandardCharsets.US_ASCII);
        } catch (IOException | RuntimeException e) {
            return new int[0];
        }
        for (String line : lines) {
            if (line.startsWith("Groups:")) {
                List<Integer> gs = new ArrayList<>();
                for (String g : line.substring("Groups:".length()).trim().split("\\s+")) {
                    if (!g.isEmpty()) {
                        gs.add(Integer.parseUnsignedInt(g));
                    }
                }
                return gs.stream().mapToInt(Integer::intValue).toArray();
            }
        }
        return new int[0];
    }
}
