package dev.seqvfs.tests.embed;

import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.OpenFlags;
import java.nio.charset.StandardCharsets;

/**
 * An embedder that forgets {@link SeqVfs#close()}: it creates an instance, makes a few calls of
 * each kind (a namespace write, a file written through a descriptor, a pipe), prints {@link
 * #MARKER} and returns from {@code main}. Run by {@link ForgottenCloseTest} in a child JVM, which
 * must then exit on its own.
 */
public final class ForgetCloseMain {
    /** The line printed just before {@code main} returns. */
    public static final String MARKER = "main returns";

    private ForgetCloseMain() {}

    /** Uses an instance and returns without closing it. */
    public static void main(String[] args) {
        SeqVfs vfs = SeqVfs.create();
        VfsTask t = vfs.newTask(Credentials.ROOT);
        t.mkdir("/data", 0755);
        int fd = t.open("/data/log", OpenFlags.O_CREAT | OpenFlags.O_WRONLY, 0644);
        t.write(fd, "hello\n".getBytes(StandardCharsets.UTF_8));
        t.close(fd);
        int[] p = t.pipe();
        t.write(p[1], new byte[] {1, 2, 3});
        t.read(p[0], new byte[3], 0, 3);
        t.async().mkdir("/data/more", 0755).join();
        System.out.println(t.stat("/data/log").size());
        System.out.println(MARKER);
        System.out.flush();
    }
}
