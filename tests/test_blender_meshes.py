"""The Blender session's "mesh from a file" builder: GLB/GLTF/OBJ/PLY import with textures kept, parts joined,
fit to a bounding-box diagonal, and one clear error for a bad file; the rendered silhouette agrees with the
exact rasterizer."""

import numpy as np
import pytest

from simkit.core.errors import InputError
from simkit.core.scene import Camera, Material, MeshSource, Scene, SceneObject, Sun, Track
from simkit.renderers.blender import RenderSettings, get_session
from simkit.renderers.raster import extrinsics, intrinsics, rasterize, transform


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    import trimesh
    from test_pairs_generator import CUBE_F, CUBE_V, texture, write_obj

    d = tmp_path_factory.mktemp("meshes")
    obj = write_obj(d / "cube.obj", CUBE_V, CUBE_F, texture(3), size=(1.0, 0.5, 0.25))
    loaded = trimesh.load(str(obj))
    loaded.export(str(d / "cube.glb"))
    two = trimesh.Scene([trimesh.creation.box((1, 1, 1)), trimesh.creation.icosphere(radius=0.5)])
    two.geometry["geometry_1"].apply_translation((2.0, 0, 0))
    two.export(str(d / "two.glb"))
    trimesh.creation.icosphere(radius=0.7).export(str(d / "ball.ply"))
    (d / "broken.glb").write_bytes(b"glTF\x02\x00\x00\x00not a gltf")
    return d


def build(objects, w=64, h=48, engine="workbench"):
    ses = get_session()
    ses.reset()
    ses.configure(RenderSettings(engine, w, h, 1, workbench_light="FLAT"), 1, 24.0)
    cam = Camera((0.0, -8.0, 0.0), (0.0, 0.0, 0.0))
    sc = Scene(1, 24.0, objects, cam, Sun(0.3, 0.8), (1.0, 1.0, 1.0))
    ses.build(sc)
    return ses, sc


def obj(name, path, diagonal=2.0, material=None, pos=(0.0, 0.0, 0.0)):
    return SceneObject(
        name, "object", "mesh", (), material, Track.static(1, pos), mesh=MeshSource(str(path), diagonal)
    )


def test_imports_keep_textures_join_parts_and_fit_the_diagonal(files):
    ses, _ = build(
        [
            obj("glb", files / "cube.glb"),
            obj("two", files / "two.glb", pos=(3, 0, 0)),
            obj("ply", files / "ball.ply", 1.0, Material("red", (1, 0, 0)), pos=(-3, 0, 0)),
            obj("obj", files / "cube.obj", None, pos=(0, 0, 3)),
        ]
    )
    for name, diag in (("glb", 2.0), ("two", 2.0), ("ply", 1.0)):
        v, f = ses.geometry(name)
        assert np.linalg.norm(v.max(0) - v.min(0)) == pytest.approx(diag, rel=1e-6)
        assert np.abs((v.max(0) + v.min(0)) / 2).max() < 1e-6  # centred on its bounding box
    v, f = ses.geometry("obj")  # no fit: the file's own size (2 x 1 x 0.5 m)
    assert sorted(np.round(v.max(0) - v.min(0), 6)) == [0.5, 1.0, 2.0]
    assert len(ses.geometry("two")[1]) == 12 + 1280  # box and icosphere (3 subdivisions) joined
    for name in ("glb", "obj"):
        mats = ses.objects[name].data.materials
        images = [n.image for m in mats for n in m.node_tree.nodes if n.type == "TEX_IMAGE"]
        assert images and images[0] is not None and images[0].size[0] == 64  # the texture came along
    assert ses.objects["ply"].data.materials[0].name.startswith("ply:red")


def test_bad_mesh_files_are_one_clear_error(files):
    with pytest.raises(InputError, match=r"broken\.glb: Blender cannot import this mesh"):
        build([obj("bad", files / "broken.glb")])
    with pytest.raises(InputError, match=r"missing\.obj: mesh file not found"):
        build([obj("bad", files / "missing.obj")])
    with pytest.raises(ValueError, match="unsupported mesh format"):
        MeshSource(str(files / "x.stl"))


def test_rendered_silhouette_matches_the_exact_raster(files):
    # the projection model of the labels (K, extrinsics, pixel centres) is Blender's: Cycles' rendered
    # coverage and the rasterizer's pixel-centre mask agree pixel for pixel (at 50 % coverage), and their
    # centroids within 0.1 px (Workbench's anti-aliasing pattern shifts edges by about 0.1 px)
    w, h = 96, 72
    ses, sc = build([obj("glb", files / "cube.glb", 3.0, Material("black", (0, 0, 0)))], w, h, "cycles")
    img = ses.render(1)[0].astype(float)
    v, f = ses.geometry("glb")
    poses, cam = ses.world_matrices(0)
    tri = transform(transform(v, poses["glb"]), extrinsics(cam))[f]
    mask = rasterize(tri, intrinsics(35.0, 36.0, w, h), w, h).triangle >= 0
    dark = img.mean(-1) < 128
    assert mask.sum() > 500
    assert (mask != dark).sum() <= 4  # measured: 0
    ys, xs = np.nonzero(mask)
    cov = 1 - img.mean(-1) / 255
    yy, xx = np.mgrid[0:h, 0:w]
    assert (xx * cov).sum() / cov.sum() == pytest.approx(xs.mean(), abs=0.1)
    assert (yy * cov).sum() / cov.sum() == pytest.approx(ys.mean(), abs=0.1)
