/* The rules for every file a command writes (docs/cli.md, "Output files"):
 *   1. the name ends in the extension of what is written (.glb, .gltf, .png, .csv, .json, .txt), and is not empty;
 *   2. it is none of the files the command read (or that its glTF names): compared by the file itself
 *      (sf_file_same, so links and other spellings are caught) and by the resolved path (sf_file_resolve,
 *      for an output that does not exist yet);
 *   3. an existing file is replaced only when it is a regular file that looks like one this kind of output
 *      writes ("ours", below), or with --force;
 *   4. the file is written through the files layer: a temporary file next to it, renamed over it when
 *      complete (skinframe_files.h), so a failed or killed write leaves the old file as it was.
 * Rules 1 and 2 hold even with --force, and something that is not a regular file (a folder, FIFO, device)
 * is never replaced. A link at the output's name is replaced by the new file (rename), its target left as
 * it was; a link to an input is refused by rule 2. Every refusal is one line on stderr and exit status 2 (bad usage),
 * given before any work is done; a write that fails is exit status 1.
 * "Ours", per kind (the first bytes of the existing file):
 *   CLI_OUTPUT_GLB        the glb magic "glTF", version 2, and a JSON chunk whose asset.generator starts
 *                         with "skinframe" (every glb the library writes says so)
 *   CLI_OUTPUT_PNG        a PNG: the 8-byte signature followed by an IHDR chunk (textures of the input are
 *                         inputs by rule 2)
 *   CLI_OUTPUT_EVAL_CSV   a first line that is exactly CLI_EVAL_CSV_HEADER (one asset) or "file," and it (a batch)
 *   CLI_OUTPUT_DUMP_JSON  the dump's opening in its first 64 KiB: '{"scene":' (after any space), then
 *                         "vertex_count", "triangle_count" and "positions":[ in that order (compare --dump; the
 *                         rest of a large old dump is never read)
 *   CLI_OUTPUT_DEMO_JSON  JSON whose first non-space byte is '[', that parses, and whose elements are objects
 *                         with "case_id" (demo --out DIR: DIR/demo.json)
 *   CLI_OUTPUT_DEMO_TEXT  a first line that starts with "case" and names the columns "morph" and "method"
 *                         (demo --out DIR: DIR/demo.txt)
 *   CLI_OUTPUT_GLTF       JSON whose asset.generator starts with "skinframe" (fix -o OUT.gltf)
 * An empty existing file holds nothing to lose and counts as ours for every kind. */
#ifndef SF_CLI_OUTPUTS_H
#define SF_CLI_OUTPUTS_H

#include "cli.h"

typedef enum cli_output_kind {
    CLI_OUTPUT_GLB = 0,
    CLI_OUTPUT_PNG,
    CLI_OUTPUT_EVAL_CSV,
    CLI_OUTPUT_DUMP_JSON,
    CLI_OUTPUT_DEMO_JSON,
    CLI_OUTPUT_DEMO_TEXT,
    CLI_OUTPUT_GLTF,
    CLI_OUTPUT_KIND_COUNT
} cli_output_kind;

/* The header line of eval --csv (without the newline). */
#define CLI_EVAL_CSV_HEADER \
    "animation,frame,time_s,method,normal_mean_deg,normal_max_deg,tangent_mean_deg,tangent_max_deg"

/* --force: tries argv[i]. Returns 1 when it is --force (rule 3 is lifted for this process), 0 when not,
 * -1 after a one-line error (given twice). */
int cli_outputs_parse_force(char** argv, int i);

/* Adds files the command read (copied; e.g. sf_gltf.input_files, which cli_gltf_load adds itself). */
int cli_outputs_add_inputs(const char* const* paths, size_t count);

/* Rule 1 only (before anything is loaded): CLI_EXIT_OK, or CLI_EXIT_USAGE after a one-line error naming
 * flag. */
int cli_output_name(const char* flag, const char* path, cli_output_kind kind);
/* Rule 2 alone (a file of a folder output, whose name is the command's own): CLI_EXIT_OK, or CLI_EXIT_USAGE
 * after a one-line error naming flag. */
int cli_output_not_input(const char* flag, const char* path);
/* Rules 1 to 3 (after the inputs are known, before the work): CLI_EXIT_OK, or CLI_EXIT_USAGE after a
 * one-line error naming flag ("-o: X is an input of this command (/abs/X)"). */
int cli_output_check(const char* flag, const char* path, cli_output_kind kind);

/* cli_output_check, then writes size bytes to path atomically. CLI_EXIT_OK, CLI_EXIT_USAGE (a rule) or
 * CLI_EXIT_FAILURE (the write failed), each after a one-line error. */
int cli_output_write(const char* flag, const char* path, cli_output_kind kind, const void* data, size_t size);

/* A file written in pieces: cli_output_check, then sf_file_writer_open. *out is NULL unless CLI_EXIT_OK.
 * Finish with cli_output_commit (or sf_file_writer_abort). */
int cli_output_open(const char* flag, const char* path, cli_output_kind kind, sf_file_writer** out);
/* sf_file_writer_commit: CLI_EXIT_OK or CLI_EXIT_FAILURE after a one-line error naming flag. */
int cli_output_commit(const char* flag, sf_file_writer* writer);

/* A folder that receives outputs (render -o DIR with several methods, demo --out DIR): refuses a name that
 * ends in an output extension (".png" is a picture's name, not a folder's), a path that is an input or an
 * existing non-folder (CLI_EXIT_USAGE); then creates it with its parents (cli_make_dir). */
int cli_output_folder(const char* flag, const char* path);
/* Forgets the inputs and --force (cli_process_reset). */
void cli_outputs_reset(void);

#endif
