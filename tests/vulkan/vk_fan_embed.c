/* The embedded jacobian-fan in a VERTEX shader (shaders/fan_embedded.vert, its function in fan_embedded.glsl, and
 * the HLSL spirv-cross writes from it) against the library: every built-in scene and preset, a morphed sheet and
 * every staged glTF primitive (CesiumMan, Fox, AnimatedMorphCube among them) at its staged pose, with the
 * attributes as float and as snorm16 (sf_fan_attributes_export) bound as vertex attributes of those formats. The
 * mesh is drawn as points with rasterisation discarded; each vertex writes its frame to a storage buffer, which
 * must be within 0.01 degrees of sf_frames_compute's jacobian-fan with every handedness equal.
 *   vk_fan_embed SPV...      (each a fan_embedded.vert compiled to SPIR-V; SF_ASSETS: tests/assets)
 * Exit status 0 when all match, 1 otherwise, 77 when no Vulkan device can run vertex-stage stores (1 under
 * CI=true). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

#include "gpu_layout.h"
#include "sf_test.h"
#include "sft_assets.h"
#include "skinframe.h"

#define TOLERANCE_DEG 0.01
#define GROUPS SF_FAN_MAX_GROUPS                  /* the shader's SF_FAN_GROUPS (its default) */
#define ATTRIBUTES (1 + GROUPS + 6 * GROUPS + 2) /* locations 0 .. 30 of fan_embedded.vert */
#define MORPH_BINDING 20u                          /* fan_embedded.vert's fan_morph */

typedef uint32_t vk_u32;
typedef float vk_f32;
typedef struct params {
#define VK_PARAM_MEMBER_(type, name, what) vk_##type name;
    SF_GPU_PARAMS(VK_PARAM_MEMBER_)
} params;

/* The storage buffers the shader reads and writes, by binding (gpu_layout.h's numbers, through its names). */
#define VK_BINDING_(index, name, type, what) B_##name = index,
enum { SF_GPU_BINDINGS(VK_BINDING_) };
static const uint32_t used[] = {B_rest_positions, B_rest_normals, B_rest_tangents, B_joints,    B_weights,
                                B_morph_offsets,  B_morph_target, B_morph_dp,      B_bones,     B_morph_weights,
                                B_normals,        B_tangents,     MORPH_BINDING};
#define USED (sizeof used / sizeof used[0])

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
    VkRenderPass pass;
    VkFramebuffer fb;
    VkPipeline pipe[2][8]; /* [encoding][shader] */
    size_t shaders;
} gpu;

typedef struct buffer {
    VkBuffer buf;
    VkDeviceMemory mem;
    void* map;
    size_t size;
} buffer;

static int vk_fail(const char* what, VkResult r)
{
    fprintf(stderr, "vk_fan_embed: %s failed (VkResult %d)\n", what, (int)r);
    return 1;
}

static int pick_device(gpu* g)
{
    uint32_t count = 0;
    vkEnumeratePhysicalDevices(g->instance, &count, NULL);
    VkPhysicalDevice devs[16];
    if (count > 16) count = 16;
    vkEnumeratePhysicalDevices(g->instance, &count, devs);
    for (uint32_t d = 0; d < count && !g->phys; ++d) {
        VkPhysicalDeviceFeatures f;
        vkGetPhysicalDeviceFeatures(devs[d], &f);
        VkPhysicalDeviceProperties p;
        vkGetPhysicalDeviceProperties(devs[d], &p);
        if (!f.vertexPipelineStoresAndAtomics || p.limits.maxVertexInputAttributes < ATTRIBUTES ||
            p.limits.maxVertexInputBindings < ATTRIBUTES)
            continue;
        uint32_t qn = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(devs[d], &qn, NULL);
        VkQueueFamilyProperties qp[16];
        if (qn > 16) qn = 16;
        vkGetPhysicalDeviceQueueFamilyProperties(devs[d], &qn, qp);
        for (uint32_t q = 0; q < qn; ++q)
            if (qp[q].queueFlags & VK_QUEUE_GRAPHICS_BIT) {
                g->phys = devs[d];
                g->family = q;
                printf("device: %s\n", p.deviceName);
                break;
            }
    }
    return g->phys != VK_NULL_HANDLE;
}

static int gpu_open(gpu* g)
{
    VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO, NULL, "vk_fan_embed", 1, "skinframe", 1,
                             VK_API_VERSION_1_1};
    VkInstanceCreateInfo ici = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, NULL, 0, &app, 0, NULL, 0, NULL};
    VkResult r = vkCreateInstance(&ici, NULL, &g->instance);
    if (r != VK_SUCCESS || !pick_device(g)) {
        const char* ci = getenv("CI");
        int strict = ci && strcmp(ci, "true") == 0; /* CI installs lavapipe: never pass with the shader unrun */
        fprintf(stderr, "vk_fan_embed: no Vulkan device with vertex-stage stores and %d vertex inputs: %s\n",
                ATTRIBUTES, strict ? "CI=true needs one" : "skipped");
        return strict ? 1 : 77;
    }
    vkGetPhysicalDeviceMemoryProperties(g->phys, &g->mem);
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, NULL, 0, g->family, 1, &prio};
    VkPhysicalDeviceFeatures feat;
    memset(&feat, 0, sizeof feat);
    feat.vertexPipelineStoresAndAtomics = VK_TRUE;
    VkDeviceCreateInfo dci = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, NULL, 0, 1, &qci, 0, NULL, 0, NULL, &feat};
    if ((r = vkCreateDevice(g->phys, &dci, NULL, &g->dev)) != VK_SUCCESS) return vk_fail("vkCreateDevice", r);
    vkGetDeviceQueue(g->dev, g->family, 0, &g->queue);
    VkDescriptorSetLayoutBinding b[USED];
    for (uint32_t i = 0; i < USED; ++i) {
        VkDescriptorSetLayoutBinding x = {used[i], VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_VERTEX_BIT, NULL};
        b[i] = x;
    }
    VkDescriptorSetLayoutCreateInfo dl = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, NULL, 0, USED, b};
    if ((r = vkCreateDescriptorSetLayout(g->dev, &dl, NULL, &g->dsl)) != VK_SUCCESS)
        return vk_fail("vkCreateDescriptorSetLayout", r);
    VkPushConstantRange pc = {VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof(params)};
    VkPipelineLayoutCreateInfo pl = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, NULL, 0, 1, &g->dsl, 1, &pc};
    if ((r = vkCreatePipelineLayout(g->dev, &pl, NULL, &g->layout)) != VK_SUCCESS)
        return vk_fail("vkCreatePipelineLayout", r);
    VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, USED};
    VkDescriptorPoolCreateInfo dp = {VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, NULL,
                                     VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT, 1, 1, &ps};
    if ((r = vkCreateDescriptorPool(g->dev, &dp, NULL, &g->pool)) != VK_SUCCESS)
        return vk_fail("vkCreateDescriptorPool", r);
    VkCommandPoolCreateInfo cp = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, NULL,
                                  VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, g->family};
    if ((r = vkCreateCommandPool(g->dev, &cp, NULL, &g->cmd_pool)) != VK_SUCCESS)
        return vk_fail("vkCreateCommandPool", r);
    /* no attachments: the vertex stage's stores are the output */
    VkSubpassDescription sub = {0, VK_PIPELINE_BIND_POINT_GRAPHICS, 0, NULL, 0, NULL, NULL, NULL, 0, NULL};
    VkRenderPassCreateInfo rp = {VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO, NULL, 0, 0, NULL, 1, &sub, 0, NULL};
    if ((r = vkCreateRenderPass(g->dev, &rp, NULL, &g->pass)) != VK_SUCCESS) return vk_fail("vkCreateRenderPass", r);
    VkFramebufferCreateInfo fb = {VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO, NULL, 0, g->pass, 0, NULL, 1, 1, 1};
    if ((r = vkCreateFramebuffer(g->dev, &fb, NULL, &g->fb)) != VK_SUCCESS) return vk_fail("vkCreateFramebuffer", r);
    return 0;
}

/* Everything gpu_open and the pipelines made, in reverse order. */
static void gpu_close(gpu* g)
{
    if (g->dev) {
        vkDeviceWaitIdle(g->dev);
        for (int e = 0; e < 2; ++e)
            for (size_t s = 0; s < 8; ++s)
                if (g->pipe[e][s]) vkDestroyPipeline(g->dev, g->pipe[e][s], NULL);
        if (g->fb) vkDestroyFramebuffer(g->dev, g->fb, NULL);
        if (g->pass) vkDestroyRenderPass(g->dev, g->pass, NULL);
        if (g->cmd_pool) vkDestroyCommandPool(g->dev, g->cmd_pool, NULL);
        if (g->pool) vkDestroyDescriptorPool(g->dev, g->pool, NULL);
        if (g->layout) vkDestroyPipelineLayout(g->dev, g->layout, NULL);
        if (g->dsl) vkDestroyDescriptorSetLayout(g->dev, g->dsl, NULL);
        vkDestroyDevice(g->dev, NULL);
    }
    /* The instance stays to the process's end: destroying it unloads lavapipe, whose graphics pipelines leave
     * 112 bytes inside the driver that LeakSanitizer then reports from an unknown module. Every object this
     * test makes is destroyed above, so the sanitizer build still checks the test's own memory. */
    memset(g, 0, sizeof *g);
}

static int buffer_make(gpu* g, size_t size, const void* data, VkBufferUsageFlags usage, buffer* out)
{
    memset(out, 0, sizeof *out);
    out->size = size ? size : 16;
    VkBufferCreateInfo bi = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, NULL, 0, out->size, usage,
                             VK_SHARING_MODE_EXCLUSIVE, 0, NULL};
    VkResult r = vkCreateBuffer(g->dev, &bi, NULL, &out->buf);
    if (r != VK_SUCCESS) return vk_fail("vkCreateBuffer", r);
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(g->dev, out->buf, &req);
    uint32_t type = UINT32_MAX;
    VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    for (uint32_t i = 0; i < g->mem.memoryTypeCount && type == UINT32_MAX; ++i)
        if ((req.memoryTypeBits & (1u << i)) && (g->mem.memoryTypes[i].propertyFlags & want) == want) type = i;
    if (type == UINT32_MAX) return vk_fail("a host-visible memory type", VK_ERROR_UNKNOWN);
    VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, NULL, req.size, type};
    if ((r = vkAllocateMemory(g->dev, &ai, NULL, &out->mem)) != VK_SUCCESS) return vk_fail("vkAllocateMemory", r);
    vkBindBufferMemory(g->dev, out->buf, out->mem, 0);
    if ((r = vkMapMemory(g->dev, out->mem, 0, VK_WHOLE_SIZE, 0, &out->map)) != VK_SUCCESS)
        return vk_fail("vkMapMemory", r);
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

/* The attribute formats of one encoding: location 0 the fan normal, 1 .. GROUPS the joints, then the
 * coefficient vectors, then the two scale vectors; one vertex buffer binding per location. */
static VkFormat attribute_format(uint32_t loc, sf_fan_encoding enc)
{
    if (loc == 0) return VK_FORMAT_R32G32B32_SFLOAT;
    if (loc <= GROUPS) return VK_FORMAT_R16G16B16A16_UINT;
    if (loc <= GROUPS + 6 * GROUPS)
        return enc == SF_FAN_SNORM16 ? VK_FORMAT_R16G16B16A16_SNORM : VK_FORMAT_R32G32B32A32_SFLOAT;
    return VK_FORMAT_R32G32B32A32_SFLOAT;
}

static uint32_t attribute_stride(VkFormat f)
{
    return f == VK_FORMAT_R32G32B32_SFLOAT ? 12u : f == VK_FORMAT_R32G32B32A32_SFLOAT ? 16u : 8u;
}

static VkPipeline pipeline(gpu* g, const char* spv, sf_fan_encoding enc)
{
    size_t size = 0;
    char* code = sft_read_file(spv, &size);
    if (!code) return VK_NULL_HANDLE;
    VkShaderModuleCreateInfo mi = {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, NULL, 0, size, (const uint32_t*)(void*)code};
    VkShaderModule mod;
    VkResult r = vkCreateShaderModule(g->dev, &mi, NULL, &mod);
    free(code);
    if (r != VK_SUCCESS) return VK_NULL_HANDLE;
    VkPipelineShaderStageCreateInfo st = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0,
                                          VK_SHADER_STAGE_VERTEX_BIT, mod, "main", NULL};
    VkVertexInputBindingDescription vb[ATTRIBUTES];
    VkVertexInputAttributeDescription va[ATTRIBUTES];
    for (uint32_t loc = 0; loc < ATTRIBUTES; ++loc) {
        VkFormat f = attribute_format(loc, enc);
        VkVertexInputBindingDescription b = {loc, attribute_stride(f), VK_VERTEX_INPUT_RATE_VERTEX};
        VkVertexInputAttributeDescription a = {loc, loc, f, 0};
        vb[loc] = b;
        va[loc] = a;
    }
    VkPipelineVertexInputStateCreateInfo vi = {VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO, NULL, 0,
                                               ATTRIBUTES, vb, ATTRIBUTES, va};
    VkPipelineInputAssemblyStateCreateInfo ia = {VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO, NULL, 0,
                                                 VK_PRIMITIVE_TOPOLOGY_POINT_LIST, VK_FALSE};
    VkPipelineRasterizationStateCreateInfo rs = {VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO, NULL, 0,
                                                 VK_FALSE, VK_TRUE, VK_POLYGON_MODE_FILL, VK_CULL_MODE_NONE,
                                                 VK_FRONT_FACE_COUNTER_CLOCKWISE, VK_FALSE, 0.0f, 0.0f, 0.0f, 1.0f};
    VkGraphicsPipelineCreateInfo ci = {VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO, NULL, 0, 1, &st, &vi, &ia,
                                       NULL, NULL, &rs, NULL, NULL, NULL, NULL, g->layout, g->pass, 0,
                                       VK_NULL_HANDLE, 0};
    VkPipeline p = VK_NULL_HANDLE;
    r = vkCreateGraphicsPipelines(g->dev, VK_NULL_HANDLE, 1, &ci, NULL, &p);
    vkDestroyShaderModule(g->dev, mod, NULL);
    if (r != VK_SUCCESS) vk_fail("vkCreateGraphicsPipelines", r);
    return p;
}

/* Draws n points with pipeline p, the vertex buffers vbuf bound, and waits. */
static int draw(gpu* g, VkPipeline p, VkDescriptorSet set, const params* prm, const buffer* vbuf, uint32_t n)
{
    VkCommandBufferAllocateInfo ai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, NULL, g->cmd_pool,
                                      VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1};
    VkCommandBuffer cb;
    VkResult r = vkAllocateCommandBuffers(g->dev, &ai, &cb);
    if (r != VK_SUCCESS) return vk_fail("vkAllocateCommandBuffers", r);
    VkCommandBufferBeginInfo bi = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, NULL,
                                   VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, NULL};
    vkBeginCommandBuffer(cb, &bi);
    VkRenderPassBeginInfo rb = {VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO, NULL, g->pass, g->fb, {{0, 0}, {1, 1}}, 0, NULL};
    vkCmdBeginRenderPass(cb, &rb, VK_SUBPASS_CONTENTS_INLINE);
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, p);
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, g->layout, 0, 1, &set, 0, NULL);
    vkCmdPushConstants(cb, g->layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof *prm, prm);
    VkBuffer bufs[ATTRIBUTES];
    VkDeviceSize offs[ATTRIBUTES];
    for (uint32_t i = 0; i < ATTRIBUTES; ++i) {
        bufs[i] = vbuf[i].buf;
        offs[i] = 0;
    }
    vkCmdBindVertexBuffers(cb, 0, ATTRIBUTES, bufs, offs);
    vkCmdDraw(cb, n, 1, 0, 0);
    vkCmdEndRenderPass(cb);
    VkMemoryBarrier mb = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_SHADER_WRITE_BIT, VK_ACCESS_HOST_READ_BIT};
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_VERTEX_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
    vkEndCommandBuffer(cb);
    VkSubmitInfo si = {VK_STRUCTURE_TYPE_SUBMIT_INFO, NULL, 0, NULL, NULL, 1, &cb, 0, NULL};
    if ((r = vkQueueSubmit(g->queue, 1, &si, VK_NULL_HANDLE)) != VK_SUCCESS) return vk_fail("vkQueueSubmit", r);
    vkQueueWaitIdle(g->queue);
    vkFreeCommandBuffers(g->dev, g->cmd_pool, 1, &cb);
    return 0;
}

static double angle_deg(const float* a, const float* b)
{
    double la = sqrt((double)a[0] * a[0] + (double)a[1] * a[1] + (double)a[2] * a[2]);
    double lb = sqrt((double)b[0] * b[0] + (double)b[1] * b[1] + (double)b[2] * b[2]);
    if (la == 0.0 && lb == 0.0) return 0.0;
    if (la == 0.0 || lb == 0.0) return 180.0;
    return sf_angle_deg(a, b);
}

typedef struct run {
    gpu* g;
    size_t cases, failed;
    double worst[2][2]; /* [encoding][normal, tangent] over every shader */
} run;

/* The attribute arrays of topo in enc, as vertex buffers (groups past the mesh's: joints 65535, zeros) and the
 * decoded morph gradients (the engine's morph input). Returns 0 on success. */
static int upload_attributes(gpu* g, const sf_topology* topo, sf_fan_encoding enc, buffer* vbuf, buffer* morph)
{
    sf_error err;
    sf_fan_attributes a;
    memset(&a, 0, sizeof a);
    if (sf_fan_layout_get(topo, &a.layout, &err) != SF_OK) return 1;
    size_t n = a.layout.vertex_count, G = a.layout.slot_groups, T = a.layout.target_count;
    size_t elem = enc == SF_FAN_SNORM16 ? 2 : 4;
    a.encoding = enc;
    a.normal = calloc(3 * n + 1, sizeof(float));
    a.joints = calloc(4 * G * n + 1, sizeof(uint16_t));
    a.coef = calloc(24 * G * n + 1, elem);
    a.morph = calloc(6 * T * n + 1, elem);
    a.scale = calloc(SF_FAN_SCALES * n + 1, sizeof(float));
    float* scale = calloc(8 * n + 1, sizeof(float));
    float* dmorph = calloc(6 * T * n + 1, sizeof(float)); /* after the target count */
    uint32_t* words = calloc(6 * T * n + 1, sizeof(float));
    uint16_t* pad = malloc(8 * n + 8);
    int bad = sf_fan_attributes_export(topo, &a, &err) != SF_OK || !pad;
    for (size_t i = 0; !bad && i < 4 * n; ++i) pad[i] = SF_FAN_REST_JOINT;
    for (size_t v = 0; !bad && v < n; ++v)
        for (int k = 0; k < 8; ++k) scale[8 * v + k] = enc == SF_FAN_SNORM16 ? a.scale[SF_FAN_SCALES * v + k] : 1.0f;
    for (size_t i = 0; !bad && i < 6 * T * n; ++i) {
        float ds = enc == SF_FAN_SNORM16 ? a.scale[SF_FAN_SCALES * ((i % (3 * n)) / 3) + SF_FAN_COEFS] : 1.0f;
        dmorph[i] = enc == SF_FAN_SNORM16 ? fmaxf(((int16_t*)a.morph)[i] / 32767.0f, -1.0f) * ds : ((float*)a.morph)[i];
    }
    const VkBufferUsageFlags VB = VK_BUFFER_USAGE_VERTEX_BUFFER_BIT;
    bad = bad || buffer_make(g, 12 * n, a.normal, VB, &vbuf[0]);
    for (size_t k = 0; !bad && k < GROUPS; ++k)
        bad = buffer_make(g, 8 * n, k < G ? (const void*)(a.joints + 4 * n * k) : pad, VB, &vbuf[1 + k]);
    for (size_t c = 0; !bad && c < 6 * GROUPS; ++c)
        bad = buffer_make(g, 4 * elem * n, c < 6 * G ? (const char*)a.coef + c * 4 * elem * n : NULL, VB,
                          &vbuf[1 + GROUPS + c]);
    float* s01 = calloc(8 * n + 1, sizeof(float));
    for (size_t v = 0; s01 && v < n; ++v)
        for (int k = 0; k < 4; ++k) {
            s01[4 * v + k] = scale[8 * v + k];
            s01[4 * n + 4 * v + k] = scale[8 * v + 4 + k];
        }
    bad = bad || !s01 || buffer_make(g, 16 * n, s01, VB, &vbuf[ATTRIBUTES - 2]) ||
          buffer_make(g, 16 * n, s01 + 4 * n, VB, &vbuf[ATTRIBUTES - 1]);
    if (words) {
        words[0] = (uint32_t)T;
        memcpy(words + 1, dmorph, 24 * T * n);
    }
    bad = bad || !words || buffer_make(g, 4 + 24 * T * n, words, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, morph);
    free(words);
    free(s01);
    free(a.normal);
    free(a.joints);
    free(a.coef);
    free(a.morph);
    free(a.scale);
    free(scale);
    free(dmorph);
    free(pad);
    return bad;
}

/* One shader, one encoding on one posed mesh: the largest normal and tangent angles to the library's frames. */
static int run_one(gpu* g, VkPipeline p, const sf_topology* topo, const sf_pose* pose, sf_fan_encoding enc,
                   const float* lib_n, const float* lib_t, double out[2], size_t* mismatched_w)
{
    sf_gpu_buffer list[SF_GPU_MAX_BUFFERS];
    size_t count = sf_topology_gpu_buffers(topo, list, SF_GPU_MAX_BUFFERS);
    sf_topology_stats stats;
    sf_topology_get_stats(topo, &stats);
    size_t n = stats.vertex_count;
    buffer sb[USED], vbuf[ATTRIBUTES], morph;
    memset(sb, 0, sizeof sb);
    memset(vbuf, 0, sizeof vbuf);
    memset(&morph, 0, sizeof morph);
    int bad = upload_attributes(g, topo, enc, vbuf, &morph);
    const VkBufferUsageFlags SB = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    for (size_t i = 0; !bad && i < USED; ++i) {
        uint32_t b = used[i];
        if (b == MORPH_BINDING) {
            sb[i] = morph;
            memset(&morph, 0, sizeof morph);
            continue;
        }
        const void* data = NULL;
        size_t bytes = 0;
        if (b == B_bones) data = pose->bone_matrices, bytes = 48 * pose->bone_count;
        else if (b == B_morph_weights) data = pose->morph_weights, bytes = pose->morph_weights ? 4 * pose->morph_weight_count : 0;
        else if (b == B_normals) bytes = 12 * n;
        else if (b == B_tangents) bytes = 16 * n;
        for (size_t k = 0; k < count && !data && !bytes; ++k)
            if (strcmp(list[k].name, b == B_rest_positions ? "rest_positions" : b == B_rest_normals ? "rest_normals"
                                    : b == B_rest_tangents ? "rest_tangents" : b == B_joints ? "joints"
                                    : b == B_weights ? "weights" : b == B_morph_offsets ? "morph_offsets"
                                    : b == B_morph_target ? "morph_target" : "morph_dp") == 0) {
                data = list[k].data;
                bytes = 4 * list[k].count * list[k].components;
            }
        bad = buffer_make(g, bytes, data, SB, &sb[i]);
    }
    VkDescriptorSet set = VK_NULL_HANDLE;
    VkDescriptorSetAllocateInfo dai = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, NULL, g->pool, 1, &g->dsl};
    bad = bad || vkAllocateDescriptorSets(g->dev, &dai, &set) != VK_SUCCESS;
    for (size_t i = 0; !bad && i < USED; ++i) {
        VkDescriptorBufferInfo info = {sb[i].buf, 0, VK_WHOLE_SIZE};
        VkWriteDescriptorSet w = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, set, used[i], 0, 1,
                                  VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, NULL, &info, NULL};
        vkUpdateDescriptorSets(g->dev, 1, &w, 0, NULL);
    }
    params prm;
    memset(&prm, 0, sizeof prm);
    prm.vertex_count = (uint32_t)n;
    prm.influences = stats.influence_count;
    bad = bad || draw(g, p, set, &prm, vbuf, (uint32_t)n);
    out[0] = out[1] = 0.0;
    for (size_t i = 0; !bad && i < USED; ++i) {
        if (used[i] != B_normals && used[i] != B_tangents) continue;
        const float* got = (const float*)sb[i].map;
        int tangents = used[i] == B_tangents;
        for (size_t v = 0; v < n; ++v) {
            double d = tangents ? angle_deg(got + 4 * v, lib_t + 4 * v) : angle_deg(got + 3 * v, lib_n + 3 * v);
            if (d > out[tangents]) out[tangents] = d;
            if (tangents && got[4 * v + 3] != lib_t[4 * v + 3]) ++*mismatched_w;
        }
    }
    if (set) vkFreeDescriptorSets(g->dev, g->pool, 1, &set);
    for (size_t i = 0; i < USED; ++i) buffer_free(g, &sb[i]);
    for (size_t i = 0; i < ATTRIBUTES; ++i) buffer_free(g, &vbuf[i]);
    buffer_free(g, &morph);
    return bad;
}

static void check_mesh(const sf_topology* topo, const sf_pose* pose, const char* where, void* user)
{
    run* R = (run*)user;
    sf_topology_stats stats;
    sf_topology_get_stats(topo, &stats);
    size_t n = stats.vertex_count;
    float* lib_n = calloc(3 * n + 1, sizeof(float));
    float* lib_t = calloc(4 * n + 1, sizeof(float));
    sf_workspace* ws = NULL;
    sf_error err;
    sf_workspace_opts wo = {1u << SF_METHOD_JACOBIAN_FAN, SF_BACKEND_CPU};
    sf_frames_out out = {NULL, lib_n, lib_t};
    if (sf_workspace_create(topo, &wo, &ws, &err) != SF_OK ||
        sf_frames_compute(topo, pose, SF_METHOD_JACOBIAN_FAN, NULL, ws, &out, &err) != SF_OK) {
        printf("FAIL %s: the library's jacobian-fan: %s\n", where, err.message);
        ++R->failed;
    }
    sf_workspace_destroy(ws);
    /* the library zeroes the tangents of a mesh without UVs; the shader leaves that to its caller */
    int has_uv = 0;
    sf_gpu_buffer list[SF_GPU_MAX_BUFFERS];
    size_t count = sf_topology_gpu_buffers(topo, list, SF_GPU_MAX_BUFFERS);
    for (size_t k = 0; k < count; ++k) has_uv |= strcmp(list[k].name, "uvs") == 0 && list[k].count > 0;
    for (int e = 0; e < 2; ++e)
        for (size_t s = 0; s < R->g->shaders; ++s) {
            double d[2];
            size_t mism = 0;
            if (run_one(R->g, R->g->pipe[e][s], topo, pose, (sf_fan_encoding)e, lib_n, lib_t, d, &mism)) {
                printf("FAIL %s: the draw did not run\n", where);
                ++R->failed;
                continue;
            }
            if (!has_uv) d[1] = 0.0, mism = 0;
            int ok = d[0] <= TOLERANCE_DEG && d[1] <= TOLERANCE_DEG && mism == 0;
            printf("%s %-58s %-7s shader %zu: normals %.2e deg, tangents %.2e deg, handedness mismatches %zu\n",
                   ok ? "ok  " : "FAIL", where, e ? "snorm16" : "float", s, d[0], d[1], mism);
            R->failed += !ok;
            for (int k = 0; k < 2; ++k)
                if (d[k] > R->worst[e][k]) R->worst[e][k] = d[k];
        }
    ++R->cases;
    free(lib_n);
    free(lib_t);
}

static void scene_case(run* R, const char* name, const char* preset, const sf_scene_setting* s, size_t count)
{
    sf_scene* scene = NULL;
    sf_topology* topo = NULL;
    sf_error err;
    if (sf_scene_create(name, preset, s, count, NULL, &scene, &err) != SF_OK ||
        sf_topology_create(&scene->mesh, NULL, NULL, &topo, &err) != SF_OK) {
        printf("FAIL scene %s: %s\n", name, err.message);
        ++R->failed;
    } else {
        char where[160];
        snprintf(where, sizeof where, "scene %s %s%s", name, preset ? preset : "rest", count ? " morphed" : "");
        check_mesh(topo, &scene->pose, where, R);
    }
    sf_topology_destroy(topo);
    sf_scene_destroy(scene);
}

int main(int argc, char** argv)
{
    if (argc < 2 || argc - 1 > 8) {
        fprintf(stderr, "usage: vk_fan_embed SPV... (fan_embedded.vert as SPIR-V, up to 8)\n");
        return 2;
    }
    gpu g;
    memset(&g, 0, sizeof g);
    int rc = gpu_open(&g);
    if (rc) {
        gpu_close(&g);
        return rc;
    }
    g.shaders = (size_t)(argc - 1);
    for (int e = 0; e < 2; ++e)
        for (size_t s = 0; s < g.shaders; ++s)
            if (!(g.pipe[e][s] = pipeline(&g, argv[1 + s], (sf_fan_encoding)e))) {
                fprintf(stderr, "vk_fan_embed: no pipeline from %s\n", argv[1 + s]);
                gpu_close(&g);
                return 1;
            }
    run R;
    memset(&R, 0, sizeof R);
    R.g = &g;
    for (size_t i = 0; i < sf_scene_count(); ++i) {
        const sf_scene_info* info = sf_scene_info_at(i);
        for (size_t p = 0; p < info->preset_count; ++p) scene_case(&R, info->name, info->presets[p].name, NULL, 0);
    }
    sf_scene_setting morph[] = {{"towel-twist", 0.7}, {"swirl", 0.5}, {"ripples", 0.6}};
    scene_case(&R, "sheet", "bone-twist", morph, 3);
    int files = sft_each_staged_primitive(check_mesh, &R);
    printf("%zu cases (%d staged files), largest: float normals %.2e tangents %.2e deg, snorm16 normals %.2e "
           "tangents %.2e deg; %zu failed\n",
           R.cases, files, R.worst[0][0], R.worst[0][1], R.worst[1][0], R.worst[1][1], R.failed);
    gpu_close(&g);
    return R.failed || sft_failed_now ? 1 : 0;
}
