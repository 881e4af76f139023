package dev.seqvfs.load;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;

/**
 * Checks, before a run, that a results file ({@code --json}, {@code --chart}) can be written, and
 * words I/O failures for a one-line message without Java class names. Stateless; thread-safe.
 */
public final class OutputFiles {
    private OutputFiles() {}

    /**
     * Checks that {@code file} can be written: it is not empty (which Java reads as the current
     * directory), its parent directory exists (it is not created), is a directory and lets this
     * process create a file in it; the file itself, if it exists, is not a directory and can be
     * opened for writing (it is not truncated). A probe file is created in the directory and
     * removed at once when the file does not exist yet (root passes every permission check, but not
     * a read-only or pseudo file system).
     *
     * @param option the option's name, for the message ({@code --json})
     * @throws LoadException a {@link LoadException#usage usage} error {@code OPTION FILE: REASON}
     */
    public static void checkWritable(String option, Path file) {
        if (file.toString().isEmpty()) {
            throw LoadException.usage(option + " '': empty value");
        }
        Path abs = file.toAbsolutePath();
        Path parent = abs.getParent();
        if (parent == null) {
            throw LoadException.usage(option + " " + file + ": is a directory, not a file");
        }
        if (!Files.exists(parent)) {
            throw LoadException.usage(
                    option + " " + file + ": directory " + parent + " does not exist");
        }
        if (!Files.isDirectory(parent)) {
            throw LoadException.usage(option + " " + file + ": " + parent + " is not a directory");
        }
        if (Files.isDirectory(abs)) {
            throw LoadException.usage(option + " " + file + ": is a directory, not a file");
        }
        try {
            if (Files.exists(abs, LinkOption.NOFOLLOW_LINKS) || Files.exists(abs)) {
                try (FileChannel c = FileChannel.open(abs, StandardOpenOption.WRITE)) {
                    // opened for writing: it can be replaced at the end
                }
            } else {
                Path probe = Files.createTempFile(parent, ".seqvfs-probe-", ".tmp");
                Files.delete(probe);
            }
        } catch (IOException | SecurityException e) {
            throw LoadException.usage(option + " " + file + ": cannot write: " + reason(e), e);
        }
    }

    /** Returns why an I/O operation failed, in words (no class names). */
    public static String reason(Exception e) {
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof NoSuchFileException) {
            return "no such file or directory";
        }
        if (e instanceof NotDirectoryException) {
            return "not a directory";
        }
        if (e instanceof FileSystemException f && f.getReason() != null) {
            return f.getReason().toLowerCase(Locale.ROOT);
        }
        if (e instanceof FileNotFoundException && e.getMessage() != null) {
            // "PATH (Reason)"
            String m = e.getMessage();
            int open = m.lastIndexOf(" (");
            return open >= 0 && m.endsWith(")")
                    ? m.substring(open + 2, m.length() - 1).toLowerCase(Locale.ROOT)
                    : m;
        }
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t && t.getCause() instanceof Exception c) {
            if (c instanceof IOException) {
                return reason(c);
            }
            t = c;
        }
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }
}
