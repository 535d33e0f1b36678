/* A program against every installed layer (find_package(skinframe COMPONENTS scenes gltf render files eval),
 * or pkg-config skinframe-scenes skinframe-gltf skinframe-render skinframe-files skinframe-eval): a built-in
 * scene measured against the reference, a PNG encoded (zlib), a broken glTF refused (cJSON), a file compared
 * with itself, and an engine preset and a clip's frames from the evaluation layer. Exits 1 on a surprise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <skinframe_eval.h>
#include <skinframe_files.h>
#include <skinframe_gltf.h>
#include <skinframe_render.h>
#include <skinframe_scenes.h>

int main(int argc, char** argv)
{
    (void)argc;
    sf_scene* scene = NULL;
    sf_topology* topo = NULL;
    sf_workspace* ws = NULL;
    sf_error err;
    if (sf_scene_create("sheet", "bone-twist", NULL, 0, NULL, &scene, &err) != SF_OK ||
        sf_topology_create(&scene->mesh, NULL, NULL, &topo, &err) != SF_OK ||
        sf_workspace_create(topo, NULL, &ws, &err) != SF_OK) {
        fprintf(stderr, "layers_check: %s\n", err.message);
        return 1;
    }
    size_t count = scene->mesh.vertex_count;
    float* buf = calloc(14 * count, sizeof(float));
    sf_frames_out out = {NULL, buf, buf + 3 * count}, ref = {NULL, buf + 7 * count, buf + 10 * count};
    sf_error_summary summary;
    int ok = buf && sf_frames_compute(topo, &scene->pose, SF_METHOD_UNCHANGED, NULL, ws, &out, &err) == SF_OK &&
             sf_frames_compute(topo, &scene->pose, SF_METHOD_RECOMPUTE, NULL, ws, &ref, &err) == SF_OK &&
             sf_direction_errors(topo, &out, &ref, NULL, NULL, NULL, &summary, &err) == SF_OK;
    printf("sheet bone-twist: %zu vertices, unchanged normals up to %.1f deg off\n", count, ok ? summary.normal.max : -1.0);
    ok = ok && summary.normal.max > 1.0;

    sf_image image;
    uint8_t* png = NULL;
    size_t png_size = 0;
    ok = ok && sf_image_alloc(8, 8, NULL, &image, &err) == SF_OK &&
         sf_image_encode_png(&image, NULL, &png, &png_size, &err) == SF_OK && png_size > 8 && memcmp(png, "\x89PNG", 4) == 0;
    printf("8x8 PNG: %zu bytes\n", png_size);
    if (png) sf_png_free(NULL, png, png_size);
    if (ok) sf_image_free(&image, NULL);

    sf_gltf* gltf = NULL;
    ok = ok && sf_gltf_load_memory("{\"asset\":", 9, NULL, NULL, NULL, &gltf, &err) == SF_ERROR_GLTF;
    printf("broken glTF: %s\n", sf_result_string(err.result));
    ok = ok && sf_file_same(argv[0], argv[0]) == 1;

    const sf_engine* bevy = sf_engine_find("bevy");
    sf_clip_plan plan;
    ok = ok && bevy && bevy->normals == SF_METHOD_INVERSE_TRANSPOSE &&
         sf_clip_plan_make(2.0, 30.0, 1000, &plan) == SF_OK && plan.frames == 61;
    printf("eval: %zu engine presets, a 2 s clip at 30 fps in %zu frames\n", sf_engine_count(), ok ? plan.frames : 0);

    free(buf);
    sf_workspace_destroy(ws);
    sf_topology_destroy(topo);
    sf_scene_destroy(scene);
    return ok ? 0 : 1;
}
