/* Runs the compute shaders of shaders/ (compiled to SPIR-V) through Vulkan on what `skinframe export-gpu`
 * wrote, and compares every method's normals and tangents with the library's (expected_*.bin): the largest angle
 * must stay within 1e-3 degrees and every handedness must match.
 *   vk_check SPV_DIR EXPORT_DIR...
 * SPV_DIR holds deform.spv, frames_vertex.spv, jacobian.spv, jacobian_fan.spv, recompute_faces.spv,
 * recompute_gather.spv, recompute_fused.spv (without jacobian.spv / jacobian_fan.spv / recompute_fused.spv, or
 * without exported gradients, that method is reported as not checked). recompute-fused is compared with the
 * library's recompute (its frames are recompute's bit for bit). Exit status 0 when every export matches, 1 otherwise, 77 when no Vulkan device can run compute.
 * It reads the export's params.bin and raw buffers, no JSON; the bindings, the parameter block and the ids come
 * from the library's own description (src/core/gpu_layout.h, skinframe.h), as the shaders' do. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

#include "gpu_layout.h"
#include "skinframe.h"

#define TOLERANCE_DEG 1e-3
/* One buffer per binding (SF_GPU_BINDINGS), then jacobian-fan's slots and morph gradients (SF_GPU_BINDINGS_ALT),
 * bound at 20..25 in a second descriptor set for jacobian_fan.spv. */
#define BINDINGS SF_GPU_BINDING_COUNT
#define VK_BUFFER_ENUM_(index, name, type, what) B_##name,
enum { SF_GPU_BINDINGS(VK_BUFFER_ENUM_) SF_GPU_BINDINGS_ALT(VK_BUFFER_ENUM_) BUFFERS };
#define VK_BUFFER_NAME_(index, name, type, what) #name,
static const char* const buffer_names[BUFFERS] = {SF_GPU_BINDINGS(VK_BUFFER_NAME_) SF_GPU_BINDINGS_ALT(VK_BUFFER_NAME_)};
_Static_assert(B_fan_slot_offsets == BINDINGS && B_grad_morph_duv - B_grad_slot_offsets == 5, "the ALT bindings");

typedef uint32_t vk_u32;
typedef float vk_f32;
typedef struct params {
#define VK_PARAM_MEMBER_(type, name, what) vk_##type name;
    SF_GPU_PARAMS(VK_PARAM_MEMBER_)
} params;

typedef struct gpu {
    VkInstance instance;
    VkPhysicalDevice phys;
    VkDevice dev;
    VkQueue queue;
    uint32_t family;
    VkPhysicalDeviceMemoryProperties mem;
    VkDescriptorSetLayout dsl;
    VkPipelineLayout layout;
    VkDescriptorPool pool;
    VkCommandPool cmd_pool;
} gpu;

typedef struct buffer {
    VkBuffer buf;
    VkDeviceMemory mem;
    void* map;
    size_t size;
} buffer;

static int fail(const char* what, VkResult r)
{
    fprintf(stderr, "vk_check: %s failed (VkResult %d)\n", what, (int)r);
    return 1;
}

static void* read_file(const char* dir, const char* name, size_t* size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE* f = fopen(path, "rb");
    *size = 0;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void* data = malloc(n > 0 ? (size_t)n : 4);
    if (data && n > 0 && fread(data, 1, (size_t)n, f) != (size_t)n) {
        free(data);
        data = NULL;
    }
    fclose(f);
    if (data) *size = (size_t)n;
    return data;
}

static int gpu_open(gpu* g)
{
    memset(g, 0, sizeof *g);
    VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO, NULL, "vk_check", 1, "skinframe", 1, VK_API_VERSION_1_1};
    VkInstanceCreateInfo ici = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, NULL, 0, &app, 0, NULL, 0, NULL};
    VkResult r = vkCreateInstance(&ici, NULL, &g->instance);
    if (r != VK_SUCCESS) return fail("vkCreateInstance", r) ? 77 : 77;
    uint32_t count = 0;
    vkEnumeratePhysicalDevices(g->instance, &count, NULL);
    VkPhysicalDevice devs[16];
    if (count > 16) count = 16;
    vkEnumeratePhysicalDevices(g->instance, &count, devs);
    for (uint32_t d = 0; d < count && !g->phys; ++d) {
        uint32_t qn = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(devs[d], &qn, NULL);
        VkQueueFamilyProperties qp[16];
        if (qn > 16) qn = 16;
        vkGetPhysicalDeviceQueueFamilyProperties(devs[d], &qn, qp);
        for (uint32_t q = 0; q < qn; ++q)
            if (qp[q].queueFlags & VK_QUEUE_COMPUTE_BIT) {
                g->phys = devs[d];
                g->family = q;
                break;
            }
    }
    if (!g->phys) {
        fprintf(stderr, "vk_check: no Vulkan device with a compute queue: skipped\n");
        return 77;
    }
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(g->phys, &props);
    printf("device: %s\n", props.deviceName);
    vkGetPhysicalDeviceMemoryProperties(g->phys, &g->mem);
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, NULL, 0, g->family, 1, &prio};
    VkDeviceCreateInfo dci = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, NULL, 0, 1, &qci, 0, NULL, 0, NULL, NULL};
    if ((r = vkCreateDevice(g->phys, &dci, NULL, &g->dev)) != VK_SUCCESS) return fail("vkCreateDevice", r);
    vkGetDeviceQueue(g->dev, g->family, 0, &g->queue);
    VkDescriptorSetLayoutBinding b[BINDINGS];
    for (uint32_t i = 0; i < BINDINGS; ++i) {
        VkDescriptorSetLayoutBinding x = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL};
        b[i] = x;
    }
    VkDescriptorSetLayoutCreateInfo dl = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, NULL, 0, BINDINGS, b};
    if ((r = vkCreateDescriptorSetLayout(g->dev, &dl, NULL, &g->dsl)) != VK_SUCCESS)
        return fail("vkCreateDescriptorSetLayout", r);
    VkPushConstantRange pc = {VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(params)};
    VkPipelineLayoutCreateInfo pl = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, NULL, 0, 1, &g->dsl, 1, &pc};
    if ((r = vkCreatePipelineLayout(g->dev, &pl, NULL, &g->layout)) != VK_SUCCESS) return fail("vkCreatePipelineLayout", r);
    VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, BINDINGS * 4};
    VkDescriptorPoolCreateInfo dp = {VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, NULL,
                                     VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT, 4, 1, &ps};
    if ((r = vkCreateDescriptorPool(g->dev, &dp, NULL, &g->pool)) != VK_SUCCESS) return fail("vkCreateDescriptorPool", r);
    VkCommandPoolCreateInfo cp = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, NULL,
                                  VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, g->family};
    if ((r = vkCreateCommandPool(g->dev, &cp, NULL, &g->cmd_pool)) != VK_SUCCESS) return fail("vkCreateCommandPool", r);
    return 0;
}

static int buffer_make(gpu* g, size_t size, const void* data, buffer* out)
{
    memset(out, 0, sizeof *out);
    out->size = size ? size : 16;
    VkBufferCreateInfo bi = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, NULL, 0, out->size,
                             VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, VK_SHARING_MODE_EXCLUSIVE, 0, NULL};
    VkResult r = vkCreateBuffer(g->dev, &bi, NULL, &out->buf);
    if (r != VK_SUCCESS) return fail("vkCreateBuffer", r);
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(g->dev, out->buf, &req);
    uint32_t type = UINT32_MAX;
    VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    for (uint32_t i = 0; i < g->mem.memoryTypeCount && type == UINT32_MAX; ++i)
        if ((req.memoryTypeBits & (1u << i)) && (g->mem.memoryTypes[i].propertyFlags & want) == want) type = i;
    if (type == UINT32_MAX) return fail("a host-visible memory type", VK_ERROR_UNKNOWN);
    VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, NULL, req.size, type};
    if ((r = vkAllocateMemory(g->dev, &ai, NULL, &out->mem)) != VK_SUCCESS) return fail("vkAllocateMemory", r);
    vkBindBufferMemory(g->dev, out->buf, out->mem, 0);
    if ((r = vkMapMemory(g->dev, out->mem, 0, VK_WHOLE_SIZE, 0, &out->map)) != VK_SUCCESS) return fail("vkMapMemory", r);
    memset(out->map, 0, out->size);
    if (data && size) memcpy(out->map, data, size);
    return 0;
}

static void buffer_free(gpu* g, buffer* b)
{
    if (b->buf) vkDestroyBuffer(g->dev, b->buf, NULL);
    if (b->mem) vkFreeMemory(g->dev, b->mem, NULL);
    memset(b, 0, sizeof *b);
}

static VkPipeline pipeline(gpu* g, const char* spv_dir, const char* name)
{
    size_t size = 0;
    void* code = read_file(spv_dir, name, &size);
    if (!code) return VK_NULL_HANDLE;
    VkShaderModuleCreateInfo mi = {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, NULL, 0, size, (const uint32_t*)code};
    VkShaderModule mod;
    VkResult r = vkCreateShaderModule(g->dev, &mi, NULL, &mod);
    free(code);
    if (r != VK_SUCCESS) return VK_NULL_HANDLE;
    VkPipelineShaderStageCreateInfo st = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0,
                                          VK_SHADER_STAGE_COMPUTE_BIT, mod, "main", NULL};
    VkComputePipelineCreateInfo ci = {VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO, NULL, 0, st, g->layout,
                                      VK_NULL_HANDLE, 0};
    VkPipeline p = VK_NULL_HANDLE;
    vkCreateComputePipelines(g->dev, VK_NULL_HANDLE, 1, &ci, NULL, &p);
    vkDestroyShaderModule(g->dev, mod, NULL);
    return p;
}

/* One dispatch of groups x 64 threads, waited for. */
static int run_pass(gpu* g, VkPipeline p, VkDescriptorSet set, const params* prm, uint32_t threads)
{
    VkCommandBufferAllocateInfo ai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, NULL, g->cmd_pool,
                                      VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1};
    VkCommandBuffer cb;
    VkResult r = vkAllocateCommandBuffers(g->dev, &ai, &cb);
    if (r != VK_SUCCESS) return fail("vkAllocateCommandBuffers", r);
    VkCommandBufferBeginInfo bi = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, NULL,
                                   VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, NULL};
    vkBeginCommandBuffer(cb, &bi);
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, p);
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, g->layout, 0, 1, &set, 0, NULL);
    vkCmdPushConstants(cb, g->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof *prm, prm);
    vkCmdDispatch(cb, (threads + SF_GPU_PASS_WORKGROUP - 1) / SF_GPU_PASS_WORKGROUP, 1, 1);
    vkEndCommandBuffer(cb);
    VkSubmitInfo si = {VK_STRUCTURE_TYPE_SUBMIT_INFO, NULL, 0, NULL, NULL, 1, &cb, 0, NULL};
    if ((r = vkQueueSubmit(g->queue, 1, &si, VK_NULL_HANDLE)) != VK_SUCCESS) return fail("vkQueueSubmit", r);
    vkQueueWaitIdle(g->queue);
    vkFreeCommandBuffers(g->dev, g->cmd_pool, 1, &cb);
    return 0;
}

/* Angle in degrees between a and b (double); 0 when both are zero, 180 when one is. */
static double angle_deg(const float* a, const float* b)
{
    double la = sqrt((double)a[0] * a[0] + (double)a[1] * a[1] + (double)a[2] * a[2]);
    double lb = sqrt((double)b[0] * b[0] + (double)b[1] * b[1] + (double)b[2] * b[2]);
    if (la == 0.0 && lb == 0.0) return 0.0;
    if (la == 0.0 || lb == 0.0) return 180.0;
    double c[3] = {(double)a[1] * b[2] - (double)a[2] * b[1], (double)a[2] * b[0] - (double)a[0] * b[2],
                   (double)a[0] * b[1] - (double)a[1] * b[0]};
    double s = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
    double d = (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2];
    return atan2(s, d) * 180.0 / 3.14159265358979323846;
}

/* The method's frames against expected_<stem>_normals/_tangents.bin; prints one line under `label`; returns 1
 * when off. */
static int compare(const char* dir, const char* label, const char* stem, const buffer* normals,
                   const buffer* tangents, uint32_t n, int has_uv)
{
    char name[256];
    size_t sn = 0, st = 0;
    snprintf(name, sizeof name, "expected_%s_normals.bin", stem);
    float* en = read_file(dir, name, &sn);
    snprintf(name, sizeof name, "expected_%s_tangents.bin", stem);
    float* et = read_file(dir, name, &st);
    if (!en || !et || sn != 12u * n || st != 16u * n) {
        printf("  %-22s missing or wrong-sized expected files\n", label);
        free(en);
        free(et);
        return 1;
    }
    const float* gn = normals->map;
    const float* gt = tangents->map;
    double worst_n = 0.0, worst_t = 0.0;
    uint32_t wn = 0, wt = 0, hand = 0;
    for (uint32_t v = 0; v < n; ++v) {
        double a = angle_deg(gn + 3 * v, en + 3 * v);
        if (a > worst_n) worst_n = a, wn = v;
        if (!has_uv) continue;
        double b = angle_deg(gt + 4 * v, et + 4 * v);
        if (b > worst_t) worst_t = b, wt = v;
        hand += gt[4 * v + 3] != et[4 * v + 3];
    }
    int bad = worst_n > TOLERANCE_DEG || worst_t > TOLERANCE_DEG || hand;
    printf("  %-22s normals max %.2e deg (vertex %u)  tangents max %.2e deg (vertex %u)  handedness mismatches %u  %s\n",
           label, worst_n, wn, worst_t, wt, hand, bad ? "FAIL" : "ok");
    free(en);
    free(et);
    return bad;
}

static int check_export(gpu* g, const char* spv_dir, const char* dir)
{
    size_t size = 0;
    uint32_t* pr = read_file(dir, "params.bin", &size);
    if (!pr || size < 48 || pr[0] != 1) {
        printf("%s: no params.bin of version 1\n", dir);
        free(pr);
        return 1;
    }
    uint32_t n = pr[1], F = pr[2], K = pr[3], has_uv = pr[9];
    float sign;
    memcpy(&sign, &pr[10], sizeof sign);
    free(pr);
    printf("%s: %u vertices, %u triangles, %u influences per vertex\n", dir, n, F, K);
    /* the passes' scratch; every other buffer is the export's NAME.bin */
    size_t scratch[BUFFERS] = {0};
    scratch[B_state] = SF_GPU_STATE_STRIDE * 4u * n;
    scratch[B_normals] = 12u * n;
    scratch[B_tangents] = 16u * n;
    scratch[B_face] = 48u * F;
    buffer bufs[BUFFERS];
    memset(bufs, 0, sizeof bufs);
    int bad = 0;
    for (int i = 0; i < BUFFERS && !bad; ++i) {
        void* data = NULL;
        size_t bytes = scratch[i];
        if (!bytes) {
            char name[128];
            snprintf(name, sizeof name, "%s.bin", buffer_names[i]);
            data = read_file(dir, name, &bytes);
        }
        bad = buffer_make(g, bytes, data, &bufs[i]);
        free(data);
    }
    /* sets[0]: every binding its own buffer; sets[1]: the same with jacobian-fan's data at 20..25 */
    VkDescriptorSetLayout layouts[2] = {g->dsl, g->dsl};
    VkDescriptorSetAllocateInfo ai = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, NULL, g->pool, 2, layouts};
    VkDescriptorSet sets[2] = {VK_NULL_HANDLE, VK_NULL_HANDLE};
    if (!bad && vkAllocateDescriptorSets(g->dev, &ai, sets) != VK_SUCCESS) bad = fail("vkAllocateDescriptorSets", 0);
    VkDescriptorSet set = sets[0];
    VkDescriptorBufferInfo info[2 * BINDINGS];
    VkWriteDescriptorSet w[2 * BINDINGS];
    for (int k = 0; k < 2 && !bad; ++k)
        for (int i = 0; i < BINDINGS; ++i) {
            int b = k == 1 && i >= B_grad_slot_offsets && i <= B_grad_morph_duv ? i - B_grad_slot_offsets + B_fan_slot_offsets : i;
            VkDescriptorBufferInfo bi = {bufs[b].buf, 0, VK_WHOLE_SIZE};
            info[k * BINDINGS + i] = bi;
            VkWriteDescriptorSet x = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, sets[k], (uint32_t)i, 0, 1,
                                      VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, NULL, &info[k * BINDINGS + i], NULL};
            w[k * BINDINGS + i] = x;
        }
    if (!bad) vkUpdateDescriptorSets(g->dev, 2 * BINDINGS, w, 0, NULL);
    VkPipeline p_deform = pipeline(g, spv_dir, "deform.spv"), p_vertex = pipeline(g, spv_dir, "frames_vertex.spv");
    VkPipeline p_faces = pipeline(g, spv_dir, "recompute_faces.spv"), p_gather = pipeline(g, spv_dir, "recompute_gather.spv");
    if (!bad && (!p_deform || !p_vertex || !p_faces || !p_gather)) {
        printf("  a shader did not load from %s\n", spv_dir);
        bad = 1;
    }
    params prm;
    memset(&prm, 0, sizeof prm);
    prm.vertex_count = n;
    prm.influences = K;
    prm.morph_dirs = SF_MORPH_DIRECTIONS_DELTAS; /* what export-gpu's expected frames use */
    prm.face_count = F;
    prm.weighting = SF_WEIGHTING_AREA;
    prm.has_uv = has_uv;
    prm.bitangent_sign = sign;
    if (!bad) bad = run_pass(g, p_deform, set, &prm, n);
    for (uint32_t m = SF_METHOD_UNCHANGED; m <= SF_METHOD_BONE_NORMAL_MATRICES && !bad; ++m) {
        char stem[64];
        snprintf(stem, sizeof stem, "%s", sf_method_name((sf_method)m));
        for (char* c = stem; *c; ++c)
            if (*c == '-') *c = '_';
        prm.method = m;
        if (run_pass(g, p_vertex, set, &prm, n)) bad = 1;
        bad |= compare(dir, stem, stem, &bufs[B_normals], &bufs[B_tangents], n, (int)has_uv);
    }
    /* the passes after deform.comp that need data or SPIR-V an export may lack */
    static const struct optional_pass {
        const char *spv, *label, *stem;
        int need; /* the buffer whose CSR offsets must be there */
        int set;  /* which descriptor set */
    } optional[] = {{"jacobian.spv", "jacobian", "jacobian", B_grad_slot_offsets, 0},
                    {"jacobian_fan.spv", "jacobian_fan", "jacobian_fan", B_fan_slot_offsets, 1}};
    for (size_t k = 0; k < sizeof optional / sizeof optional[0] && !bad; ++k) {
        const struct optional_pass* o = &optional[k];
        VkPipeline p = pipeline(g, spv_dir, o->spv);
        if (p && bufs[o->need].size >= 4u * (n + 1u)) {
            bad = run_pass(g, p, sets[o->set], &prm, n);
            if (!bad) bad = compare(dir, o->label, o->stem, &bufs[B_normals], &bufs[B_tangents], n, (int)has_uv);
        } else {
            printf("  %-22s not checked (%s)\n", o->label, p ? "no gradients exported" : "no SPIR-V");
        }
        if (p) vkDestroyPipeline(g->dev, p, NULL);
    }
    if (!bad) bad = run_pass(g, p_faces, set, &prm, F) || run_pass(g, p_gather, set, &prm, n);
    if (!bad) bad = compare(dir, "recompute", "recompute", &bufs[B_normals], &bufs[B_tangents], n, (int)has_uv);
    /* recompute-fused reads no state and no face buffer: clear both, so a pass that did would show */
    VkPipeline p_fused = pipeline(g, spv_dir, "recompute_fused.spv");
    if (!bad && p_fused) {
        memset(bufs[B_state].map, 0, bufs[B_state].size);
        memset(bufs[B_face].map, 0, bufs[B_face].size);
        memset(bufs[B_normals].map, 0, bufs[B_normals].size);
        memset(bufs[B_tangents].map, 0, bufs[B_tangents].size);
        bad = run_pass(g, p_fused, set, &prm, n);
        if (!bad) bad = compare(dir, "recompute_fused", "recompute", &bufs[B_normals], &bufs[B_tangents], n, (int)has_uv);
    } else if (!bad) {
        printf("  %-22s not checked (no SPIR-V)\n", "recompute_fused");
    }
    if (p_fused) vkDestroyPipeline(g->dev, p_fused, NULL);
    VkPipeline pipes[4] = {p_deform, p_vertex, p_faces, p_gather};
    for (int i = 0; i < 4; ++i)
        if (pipes[i]) vkDestroyPipeline(g->dev, pipes[i], NULL);
    if (sets[0]) vkFreeDescriptorSets(g->dev, g->pool, 2, sets);
    for (int i = 0; i < BUFFERS; ++i) buffer_free(g, &bufs[i]);
    return bad;
}

int main(int argc, char** argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: vk_check SPV_DIR EXPORT_DIR...\n");
        return 2;
    }
    gpu g;
    int r = gpu_open(&g);
    if (r) return r;
    int bad = 0;
    for (int i = 2; i < argc; ++i) bad |= check_export(&g, argv[1], argv[i]);
    printf(bad ? "vk_check: FAILED\n" : "vk_check: every export within %g degrees\n", TOLERANCE_DEG);
    vkDestroyCommandPool(g.dev, g.cmd_pool, NULL);
    vkDestroyDescriptorPool(g.dev, g.pool, NULL);
    vkDestroyPipelineLayout(g.dev, g.layout, NULL);
    vkDestroyDescriptorSetLayout(g.dev, g.dsl, NULL);
    vkDestroyDevice(g.dev, NULL);
    vkDestroyInstance(g.instance, NULL);
    return bad;
}
