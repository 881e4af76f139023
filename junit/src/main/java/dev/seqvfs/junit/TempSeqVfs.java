package dev.seqvfs.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Asks {@link SeqVfsExtension} for a fresh SeqVFS file system: on a test method's parameter or a
 * test class's field of type {@link java.nio.file.FileSystem}, {@link
 * dev.seqvfs.nio.SeqVfsFileSystem} or {@link java.nio.file.Path} (the root, {@code /}). A new one
 * per test; closed after it.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.PARAMETER, ElementType.FIELD})
public @interface TempSeqVfs {
    /** {@return the user id every call is made with (0, root, by default)} */
    int uid() default 0;

    /** {@return the group id every call is made with} */
    int gid() default 0;

    /** {@return the data limit in bytes, as tmpfs's {@code size=}; -1: the engine's default} */
    long maxBytes() default -1;

    /** {@return the inode limit, as tmpfs's {@code nr_inodes=}; -1: the engine's default} */
    long maxInodes() default -1;

    /** {@return whether the file system is read-only (after the initial tree is in place)} */
    boolean readOnly() default false;

    /** {@return directories to create, absolute, before the test (owned by root, mode 0755)} */
    String[] directories() default {};

    /**
     * {@return class-path resource directories whose contents are copied to the root before the
     * test (as root; a resource that is not a directory on the file system is an error)}
     */
    String[] resources() default {};
}
