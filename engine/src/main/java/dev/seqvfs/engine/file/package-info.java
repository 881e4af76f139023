/**
 * Regular-file contents: {@link dev.seqvfs.engine.file.FileData}, an immutable, page-indexed radix
 * tree that writers replace by path copying and readers read without locking (DESIGN.md, "File
 * data").
 */
package dev.seqvfs.engine.file;
