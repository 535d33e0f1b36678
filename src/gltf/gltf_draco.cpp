// The C-callable wrapper over libdraco (the library's only C++): decodes one KHR_draco_mesh_compression
// stream into a draco::Mesh and hands out its faces and attributes as plain arrays. Nothing throws through
// the C side: allocation failures become an error message.
#include "gltf_draco_mesh.h"

#include <draco/compression/decode.h>
#include <draco/mesh/mesh.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <new>

struct sfi_draco_mesh {
    std::unique_ptr<draco::Mesh> mesh;
};

extern "C" int sfi_draco_mesh_decode(const uint8_t* data, size_t size, sfi_draco_mesh** out, char* msg,
                                     size_t msg_size)
{
    *out = nullptr;
    try {
        draco::DecoderBuffer buffer;
        buffer.Init(reinterpret_cast<const char*>(data), size);
        auto type = draco::Decoder::GetEncodedGeometryType(&buffer);
        if (!type.ok()) {
            std::snprintf(msg, msg_size, "%s", type.status().error_msg());
            return 1;
        }
        if (type.value() != draco::TRIANGULAR_MESH) {
            std::snprintf(msg, msg_size, "holds a point cloud, not a triangle mesh");
            return 1;
        }
        draco::Decoder decoder;
        auto decoded = decoder.DecodeMeshFromBuffer(&buffer);
        if (!decoded.ok()) {
            std::snprintf(msg, msg_size, "%s", decoded.status().error_msg());
            return 1;
        }
        std::unique_ptr<sfi_draco_mesh> m(new sfi_draco_mesh);
        m->mesh = std::move(decoded).value();
        *out = m.release();
        return 0;
    } catch (const std::bad_alloc&) {
        std::snprintf(msg, msg_size, "out of memory while decoding");
    } catch (...) {
        std::snprintf(msg, msg_size, "the decoder failed");
    }
    return 1;
}

extern "C" size_t sfi_draco_mesh_points(const sfi_draco_mesh* m) { return m->mesh->num_points(); }
extern "C" size_t sfi_draco_mesh_faces(const sfi_draco_mesh* m) { return m->mesh->num_faces(); }

extern "C" void sfi_draco_mesh_indices(const sfi_draco_mesh* m, uint32_t* out)
{
    const draco::Mesh& mesh = *m->mesh;
    for (draco::FaceIndex f(0); f < mesh.num_faces(); ++f) {
        const draco::Mesh::Face& face = mesh.face(f);
        for (int k = 0; k < 3; ++k) *out++ = face[k].value();
    }
}

template <typename T>
static int convert(const draco::PointAttribute& att, size_t points, size_t ncomp, void* out)
{
    T* dst = static_cast<T*>(out);
    for (draco::PointIndex p(0); p < static_cast<uint32_t>(points); ++p) {
        if (!att.ConvertValue<T>(att.mapped_index(p), static_cast<int8_t>(ncomp), dst)) return -3;
        dst += ncomp;
    }
    return 0;
}

extern "C" int sfi_draco_mesh_attribute(const sfi_draco_mesh* m, uint32_t id, size_t ncomp, uint32_t ctype,
                                        void* out)
{
    const draco::PointAttribute* att = m->mesh->GetAttributeByUniqueId(id);
    if (!att) return -1;
    if (static_cast<size_t>(att->num_components()) != ncomp) return -2;
    size_t points = m->mesh->num_points();
    switch (ctype) {
    case 5120: return convert<int8_t>(*att, points, ncomp, out);
    case 5121: return convert<uint8_t>(*att, points, ncomp, out);
    case 5122: return convert<int16_t>(*att, points, ncomp, out);
    case 5123: return convert<uint16_t>(*att, points, ncomp, out);
    case 5125: return convert<uint32_t>(*att, points, ncomp, out);
    default: return convert<float>(*att, points, ncomp, out);
    }
}

extern "C" void sfi_draco_mesh_free(sfi_draco_mesh* m) { delete m; }
