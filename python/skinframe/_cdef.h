/* The part of skinframe.h, skinframe_eval.h, skinframe_gltf.h and skinframe_render.h the Python module calls,
 * in cffi's declaration syntax. "...;" leaves sizes, offsets and values to the C compiler, which compiles the
 * module against the real headers: a declaration here that disagrees with them fails the build. */
typedef enum sf_result { SF_OK, SF_ERROR_INVALID_ARGUMENT, SF_ERROR_OUT_OF_MEMORY, SF_ERROR_NOT_FINITE,
    SF_ERROR_INDEX_RANGE, SF_ERROR_JOINT_INDEX, SF_ERROR_COUNT_MISMATCH, SF_ERROR_NEGATIVE_WEIGHT,
    SF_ERROR_ZERO_WEIGHTS, SF_ERROR_WEIGHT_SUM, SF_ERROR_STRIDE, SF_ERROR_MISSING_STREAM, SF_ERROR_UNKNOWN_NAME,
    SF_ERROR_GLTF, SF_ERROR_IO, SF_ERROR_UNSUPPORTED, SF_ERROR_TOO_LARGE, SF_RESULT_COUNT } sf_result;

typedef struct sf_error { sf_result result; char field[64]; size_t index; char message[256]; ...; } sf_error;
const char* sf_result_string(sf_result result);
const char* sf_version_string(void);

typedef void sf_range_fn(void* ctx, size_t begin, size_t end);
typedef struct sf_threads { void (*parallel_for)(void*, size_t, size_t, sf_range_fn*, void*); void* user; ...; } sf_threads;
typedef struct sf_env { sf_threads threads; ...; } sf_env;

typedef struct sf_stream { const float* data; size_t stride; ...; } sf_stream;
typedef struct sf_morph_target_desc {
    const char* name; const float* position_deltas; const float* normal_deltas; const float* tangent_deltas;
    const uint32_t* sparse_indices; size_t sparse_count; ...;
} sf_morph_target_desc;
typedef enum sf_uv_convention { SF_UV_GLTF, SF_UV_V_UP } sf_uv_convention;
typedef enum sf_weight_policy { SF_WEIGHTS_RENORMALIZE, SF_WEIGHTS_STRICT, SF_WEIGHTS_AS_GIVEN } sf_weight_policy;
typedef enum sf_zero_weight_policy { SF_ZERO_WEIGHTS_REJECT, SF_ZERO_WEIGHTS_REST } sf_zero_weight_policy;
typedef struct sf_mesh_desc {
    size_t vertex_count; size_t triangle_count; const uint32_t* indices;
    sf_stream positions; sf_stream normals; sf_stream tangents; sf_stream uvs;
    uint32_t influence_count; const uint32_t* joints; const float* weights; size_t bone_count;
    sf_weight_policy weight_policy; sf_zero_weight_policy zero_weight_policy;
    const sf_morph_target_desc* targets; size_t target_count; sf_uv_convention uv_convention; ...;
} sf_mesh_desc;
typedef struct sf_pose {
    const float* bone_matrices; size_t bone_count; const float* morph_weights; size_t morph_weight_count; ...;
} sf_pose;

typedef struct sf_topology sf_topology;
typedef struct sf_topology_opts { int skip_gradients; float weld_normal_cos; ...; } sf_topology_opts;
typedef struct sf_topology_stats {
    size_t vertex_count, triangle_count, target_count, bone_count; uint32_t influence_count;
    size_t renormalized_vertices, zero_weight_vertices, merged_duplicate_joints, degenerate_triangles;
    size_t degenerate_uv_triangles, isolated_vertices, generated_normals, generated_tangents, weld_groups;
    ...;
} sf_topology_stats;
sf_result sf_topology_create(const sf_mesh_desc* mesh, const sf_topology_opts* opts, const sf_env* env,
                             sf_topology** out, sf_error* err);
void sf_topology_destroy(sf_topology* topo);
void sf_topology_get_stats(const sf_topology* topo, sf_topology_stats* out);
size_t sf_topology_vertex_count(const sf_topology* topo);
size_t sf_topology_triangle_count(const sf_topology* topo);
int sf_topology_has_tangent_frame(const sf_topology* topo);

typedef enum sf_backend { SF_BACKEND_CPU, SF_BACKEND_CUDA } sf_backend;
sf_result sf_backend_parse(const char* name, sf_backend* out);
typedef struct sf_workspace sf_workspace;
typedef struct sf_workspace_opts { uint32_t methods; sf_backend backend; ...; } sf_workspace_opts;
sf_result sf_workspace_create(const sf_topology* topo, const sf_workspace_opts* opts, sf_workspace** out,
                              sf_error* err);
void sf_workspace_destroy(sf_workspace* ws);

typedef enum sf_method { SF_METHOD_UNCHANGED, SF_METHOD_SKINNED, SF_METHOD_INVERSE_TRANSPOSE,
    SF_METHOD_BONE_NORMAL_MATRICES, SF_METHOD_JACOBIAN, SF_METHOD_JACOBIAN_FAN, SF_METHOD_RECOMPUTE,
    SF_METHOD_RECOMPUTE_FUSED, SF_METHOD_COUNT } sf_method;
typedef enum sf_method_cost { SF_COST_PER_VERTEX, SF_COST_GRADIENTS, SF_COST_GATHER } sf_method_cost;
#define SF_METHOD_DEFAULT_COUNT ...
const char* sf_method_name(sf_method method);
const char* sf_method_description(sf_method method);
sf_result sf_method_parse(const char* name, sf_method* out);

typedef enum sf_morph_directions { SF_MORPH_DIRECTIONS_DELTAS, SF_MORPH_DIRECTIONS_NONE,
    SF_MORPH_DIRECTIONS_NORMALS } sf_morph_directions;
typedef enum sf_weighting { SF_WEIGHTING_AREA, SF_WEIGHTING_ANGLE, SF_WEIGHTING_UNIFORM } sf_weighting;
typedef enum sf_weld { SF_WELD_NONE, SF_WELD_POSITION, SF_WELD_POSITION_NORMAL } sf_weld;
typedef enum sf_tangent_mode { SF_TANGENTS_UV, SF_TANGENTS_MIKKTSPACE } sf_tangent_mode;
typedef enum sf_reference { SF_REFERENCE_REBUILT, SF_REFERENCE_AUTHORED } sf_reference;
typedef struct sf_frames_opts {
    sf_morph_directions morph_directions; sf_weighting weighting; sf_weld weld; sf_tangent_mode tangents;
    float jacobian_cap; sf_reference reference; ...;
} sf_frames_opts;
typedef struct sf_frames_out { float* positions; float* normals; float* tangents; ...; } sf_frames_out;
sf_result sf_frames_compute(const sf_topology* topo, const sf_pose* pose, sf_method method,
                            const sf_frames_opts* opts, sf_workspace* ws, const sf_frames_out* out, sf_error* err);

typedef struct sf_angle_stats {
    size_t count; double mean, rms, p50, p95, max; double over_1, over_5, over_45; ...;
} sf_angle_stats;
typedef struct sf_error_summary {
    sf_angle_stats normal, tangent; size_t handedness_mismatches; size_t degenerate_normals, degenerate_tangents;
    size_t degenerate; size_t worst_normal_vertex, worst_tangent_vertex; ...;
} sf_error_summary;
typedef struct sf_angle_accumulator sf_angle_accumulator;

typedef struct sf_evaluation sf_evaluation;
#define SF_EVAL_KEEP_FRAMES ...
#define SF_EVAL_KEEP_ANGLES ...
typedef struct sf_eval_desc {
    const sf_method* methods; size_t method_count; sf_frames_opts method_opts; sf_frames_opts reference_opts;
    uint32_t flags; ...;
} sf_eval_desc;
typedef struct sf_eval_row {
    sf_method method; sf_result status; sf_error detail; sf_error_summary errors;
    const float* normals; const float* tangents; const float* normal_deg; const float* tangent_deg;
    const uint8_t* flags; ...;
} sf_eval_row;
typedef struct sf_eval_results {
    size_t vertex_count; int tangent_frame; const float* positions; const float* reference_normals;
    const float* reference_tangents; size_t row_count; sf_eval_row rows[...]; ...;
} sf_eval_results;
sf_result sf_evaluation_create(const sf_topology* topo, const sf_eval_desc* desc, const sf_env* env,
                               sf_evaluation** out, sf_error* err);
void sf_evaluation_destroy(sf_evaluation* ev);
typedef struct sf_eval_buffers { ...; } sf_eval_buffers;
sf_result sf_evaluation_run(sf_evaluation* ev, const sf_pose* pose, sf_workspace* ws, const sf_eval_buffers* buffers,
                            sf_error* err);
const sf_eval_results* sf_evaluation_results(const sf_evaluation* ev);
uint32_t sf_evaluation_methods_mask(const sf_evaluation* ev);

/* glTF */
#define SF_GLTF_NONE ...
typedef struct sf_gltf_opts { uint32_t texcoord; sf_tangent_mode generated_tangents; ...; } sf_gltf_opts;
typedef struct sf_gltf_primitive {
    sf_mesh_desc mesh; size_t mesh_index, primitive_index; int flat_normals; const uint32_t* source_vertex; ...;
} sf_gltf_primitive;
typedef struct sf_gltf_mesh { const char* name; size_t first_primitive, primitive_count; size_t target_count; ...; } sf_gltf_mesh;
typedef struct sf_gltf_node { const char* name; ...; } sf_gltf_node;
typedef struct sf_gltf_animation { const char* name; double start_s, end_s; ...; } sf_gltf_animation;
typedef struct sf_gltf_instance { size_t node, mesh; size_t skin; size_t bone_count; ...; } sf_gltf_instance;
typedef struct sf_gltf {
    size_t node_count, mesh_count, primitive_count, skin_count, animation_count, instance_count;
    const sf_gltf_node* nodes; const sf_gltf_mesh* meshes; const sf_gltf_primitive* primitives;
    const sf_gltf_animation* animations; const sf_gltf_instance* instances; ...;
} sf_gltf;
sf_result sf_gltf_load_file(const char* path, const sf_gltf_opts* opts, const sf_env* env, sf_gltf** out,
                            sf_error* err);
void sf_gltf_destroy(sf_gltf* gltf);

/* eval */
typedef struct sf_engine { const char* name; const char* title; ...; } sf_engine;
size_t sf_engine_count(void);
const sf_engine* sf_engine_at(size_t i);
const sf_engine* sf_engine_find(const char* name);
typedef struct sf_clip_plan { double end_s, fps; size_t frames; double frames_needed; ...; } sf_clip_plan;
double sf_clip_plan_time(const sf_clip_plan* plan, size_t frame);
typedef struct sf_method_stats {
    _Bool on; _Bool skipped; char reason[256];
    sf_angle_stats normal, tangent, rest_normal, rest_tangent; size_t handedness;
    double worst_frame_mean; size_t worst_frame; double worst_n, worst_t;
    size_t worst_n_unit, worst_n_vertex, worst_n_frame, worst_t_unit, worst_t_vertex, worst_t_frame;
    double pos_sum, pos_max, pos_diagonal; size_t pos_count;
    double frame_sn, frame_st; size_t frame_cn, frame_ct; ...;
} sf_method_stats;
sf_result sf_method_stats_create(sf_method_stats* stats, const sf_method* methods, size_t count, sf_error* err);
void sf_method_stats_free(sf_method_stats* stats);
void sf_method_stats_clip_start(sf_method_stats* m);
void sf_method_stats_frame_start(sf_method_stats* m);
sf_result sf_method_stats_add(sf_method_stats* m, const float* normal_deg, const float* tangent_deg, size_t n,
                              size_t unit, size_t frame, _Bool track_worst, sf_error* err);
void sf_method_stats_frame_end(sf_method_stats* m, size_t frame);
sf_result sf_method_stats_clip_finish(sf_method_stats* m, _Bool rest, sf_error* err);

typedef struct sf_asset_unit { size_t instance, primitive; size_t n; _Bool tangents; ...; } sf_asset_unit;
typedef struct sf_asset_eval_opts {
    const sf_method* methods; size_t method_count; sf_frames_opts reference_opts; sf_frames_opts method_opts;
    sf_backend backend; double fps; size_t max_frames; _Bool influence_variants; uint32_t max_influences;
    size_t max_morph_targets; const sf_engine* engine; _Bool all_engines; const char* name; size_t threads; ...;
} sf_asset_eval_opts;
void sf_asset_eval_opts_init(sf_asset_eval_opts* opts);
typedef struct sf_asset_variant {
    const char* label; const sf_engine* engine; uint32_t max_influences; size_t max_morph_targets;
    const sf_method* methods; size_t method_count; size_t truncated; const sf_method_stats* stats; ...;
} sf_asset_variant;
typedef struct sf_asset_influences { size_t vertices, over4, over8; uint32_t max_slots; ...; } sf_asset_influences;
typedef struct sf_asset_clip {
    size_t animation; sf_clip_plan plan; size_t vertices, tangent_vertices; const sf_method_stats* methods;
    double seconds; ...;
} sf_asset_clip;
typedef int (*sf_asset_frame_fn)(void* user, const sf_asset_clip* clip, size_t frame, double time_s);
typedef struct sf_asset_eval sf_asset_eval;
sf_result sf_asset_eval_create(const sf_gltf* g, const sf_asset_eval_opts* opts, const sf_env* env,
                               sf_asset_eval** out, sf_error* err);
void sf_asset_eval_destroy(sf_asset_eval* e);
sf_result sf_asset_eval_rest(sf_asset_eval* e, sf_error* err);
sf_result sf_asset_eval_clip(sf_asset_eval* e, size_t animation, sf_asset_frame_fn on_frame, void* user,
                             sf_asset_clip* out, sf_error* err);
sf_result sf_asset_clip_plan(const sf_gltf* g, size_t animation, double fps, size_t max_frames, sf_clip_plan* out);
const sf_asset_unit* sf_asset_eval_units(const sf_asset_eval* e, size_t* count);
void sf_asset_eval_counts(const sf_asset_eval* e, size_t* vertices, size_t* tangent_vertices);
sf_asset_influences sf_asset_eval_influences(const sf_asset_eval* e);
size_t sf_asset_eval_variant_count(const sf_asset_eval* e);
sf_asset_variant sf_asset_eval_variant(const sf_asset_eval* e, size_t i);

/* render */
void sf_heatmap_color(double angle_deg, float rgb[3]);

/* glTF instances and poses (appended: skinframe_gltf.h) */
sf_result sf_gltf_instance_mesh(const sf_gltf* gltf, size_t instance, size_t primitive, sf_mesh_desc* out,
                                sf_error* err);
typedef struct sf_gltf_pose sf_gltf_pose;
sf_result sf_gltf_pose_create(const sf_gltf* gltf, const sf_env* env, sf_gltf_pose** out, sf_error* err);
void sf_gltf_pose_destroy(sf_gltf_pose* pose);
sf_result sf_gltf_pose_sample(sf_gltf_pose* pose, size_t animation, double time_s, sf_error* err);
sf_result sf_gltf_pose_instance(const sf_gltf_pose* pose, size_t instance, float* bone_matrices,
                                float* morph_weights, float* to_world, sf_error* err);

/* data problems (skinframe_gltf.h, skinframe_eval.h) */
typedef enum sf_gltf_problem { SF_GLTF_PROBLEM_WEIGHT_SUM, SF_GLTF_PROBLEM_COUNT, ... } sf_gltf_problem;
const char* sf_gltf_problem_name(sf_gltf_problem problem);
const char* sf_gltf_problem_description(sf_gltf_problem problem);
typedef struct sf_asset_problem_total { size_t count, primitive, index; double worst; _Bool any; ...; } sf_asset_problem_total;
size_t sf_asset_problems_gather(const sf_gltf* g, const sf_asset_unit* units, size_t unit_count, uint32_t limit,
                                sf_asset_problem_total* totals);

/* batch over files (skinframe_eval.h) */
typedef struct sf_asset_paths { char** items; size_t count, cap; ...; } sf_asset_paths;
typedef void (*sf_asset_paths_skip_fn)(void* user, const char* folder, const sf_error* why);
sf_result sf_asset_paths_collect(const char* const* paths, size_t count, sf_asset_paths_skip_fn on_skip, void* user,
                                 sf_asset_paths* out, sf_error* err);
void sf_asset_paths_free(sf_asset_paths* list);

/* the module's own C (_pool.c) */
sf_env sfpy_env(int threads);
void sfpy_heatmap(const float* angles, size_t count, float* rgba);


/* fix: the rewriter (skinframe_gltf.h) and the repairs (skinframe_fix.h) */
typedef enum sf_fan_encoding { SF_FAN_FLOAT32, SF_FAN_SNORM16, ... } sf_fan_encoding;
typedef struct sf_gltf_doc sf_gltf_doc;
sf_result sf_gltf_doc_open(const char* path, const sf_gltf_opts* opts, const sf_env* env, sf_gltf_doc** out,
                           sf_error* err);
void sf_gltf_doc_destroy(sf_gltf_doc* doc);
const sf_gltf* sf_gltf_doc_gltf(const sf_gltf_doc* doc);
const char* const* sf_gltf_doc_inputs(const sf_gltf_doc* doc, size_t* count);
sf_result sf_gltf_doc_save(const sf_gltf_doc* doc, const char* path, const char* const* protect, size_t protect_count,
                           sf_error* err);
typedef struct sf_gltf_fan_counts { size_t primitives, skipped, slot_groups, accessors_written; ...; } sf_gltf_fan_counts;
sf_result sf_gltf_doc_embed_fan(sf_gltf_doc* doc, sf_fan_encoding enc, sf_gltf_fan_counts* out, sf_error* err);
typedef struct sf_fix_opts {
    _Bool morph_normals, weights, normals, tangents; uint32_t max_influences; sf_frames_opts reference_opts; ...;
} sf_fix_opts;
void sf_fix_opts_init(sf_fix_opts* opts);
typedef struct sf_fix_counts {
    size_t primitives, morph_normal_targets, morph_normal_added, morph_tangent_targets, morph_flat_skipped;
    size_t weights_renormalised, duplicate_joints_merged, influences_sorted, zero_slots_cleared;
    size_t zero_weight_vertices, influences_truncated, normals_made_unit, normals_rebuilt, tangent_w_snapped;
    size_t tangents_generated, tangent_vertices_added, tangents_need_splits, accessors_written; ...;
} sf_fix_counts;
sf_result sf_fix_apply(sf_gltf_doc* doc, const sf_fix_opts* opts, const sf_env* env, sf_fix_counts* out,
                       sf_error* err);
typedef struct sf_fix_case { char label[80]; sf_angle_stats normal, tangent; ...; } sf_fix_case;
typedef struct sf_fix_measure_result { sf_fix_case cases[...]; size_t case_count; size_t targets; ...; } sf_fix_measure_result;
sf_result sf_fix_measure(const sf_gltf* g, const sf_frames_opts* reference_opts, double fps, const sf_env* env,
                         sf_fix_measure_result* out, sf_error* err);
typedef struct sf_fix_truncation {
    size_t truncated; double position_mean, position_max, diagonal; sf_angle_stats normal; ...;
} sf_fix_truncation;
sf_result sf_fix_measure_truncation(const sf_gltf* g, uint32_t max_influences, const sf_frames_opts* reference_opts,
                                    double fps, const sf_env* env, sf_fix_truncation* out, sf_error* err);
