"""The image role's providers against loopback servers that speak their real wire formats
(OpenAI images through the openai SDK, SD WebUI's txt2img, ComfyUI's prompt/history/view), with
faults: 429 with Retry-After, 5xx, a refused prompt; and the typographic offline default."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import pytest
from acceptance.image_servers import (
    IMAGES,
    TXT2IMG,
    ComfyUIServer,
    Fault,
    OpenAIImagesServer,
    SDWebUIServer,
    comfyui,
    openai_images,
    sdwebui,
)
from pydantic import SecretStr

from aizac.errors import ConfigError, ModelError
from aizac.llm.images.base import PNG, Card, ImageRefusedError, ImageRequest
from aizac.llm.images.specs import parse_image_spec, spec_label
from aizac.llm.model_config import ModelConfig
from aizac.llm.router import ModelRouter
from aizac.settings import Settings
from aizac.text import render

__all__ = ["comfyui", "openai_images", "sdwebui"]  # fixtures

SCENE = ImageRequest("scene", "검의 탑 3층, 새벽. 한서아: 회색 눈동자", 1536, 1024,
                     negative="text, watermark", language="ko")


def _router(spec: str, **settings: object) -> tuple[ModelRouter, list[float]]:
    slept: list[float] = []
    router = ModelRouter(Settings(image_model=spec, **settings), sleep=slept.append)  # type: ignore[arg-type]
    return router, slept


def _png_size(data: bytes) -> tuple[int, int]:
    from PIL import Image

    return Image.open(io.BytesIO(data)).size


# ------------------------------------------------------------------------------------ OpenAI
def test_openai_compatible_images_through_the_sdk(openai_images: OpenAIImagesServer) -> None:
    router, _ = _router(f"openai-compatible:{openai_images.base_url}:gpt-image-1",
                        openai_api_key=SecretStr("sk-openai-never-sent"),
                        openai_compatible_api_key=SecretStr("compat-key"))
    image = router.image_model().generate(SCENE)
    assert image.media_type == PNG and _png_size(image.data) == (384, 256)
    (seen,) = openai_images.image_requests
    assert seen.body["model"] == "gpt-image-1" and seen.body["size"] == "1536x1024"
    assert seen.body["prompt"] == SCENE.prompt and "response_format" not in seen.body
    assert seen.headers["authorization"] == "Bearer compat-key"
    assert image.revised_prompt.startswith("검의 탑")
    totals = router.usage.totals("image")
    assert (totals.calls, totals.images, totals.failed) == (1, 1, 0)


def test_openai_asks_base64_of_a_dall_e_model(openai_images: OpenAIImagesServer) -> None:
    router, _ = _router("openai:dall-e-3", openai_base_url=openai_images.base_url,
                        openai_api_key=SecretStr("sk-test"))
    router.image_model().generate(SCENE)
    assert openai_images.image_requests[0].body["response_format"] == "b64_json"
    assert openai_images.image_requests[0].headers["authorization"] == "Bearer sk-test"


def test_a_429_waits_what_retry_after_asks_then_succeeds(
    openai_images: OpenAIImagesServer,
) -> None:
    openai_images.image_fault(Fault(IMAGES, status=429, retry_after=7),
                              Fault(IMAGES, status=503))
    router, slept = _router(f"openai-compatible:{openai_images.base_url}:m")
    assert router.image_model().generate(SCENE).data
    assert len(openai_images.image_requests) == 3
    assert slept[0] == 7 and len(slept) == 2
    totals = router.usage.totals("image")
    assert (totals.calls, totals.failed, totals.images) == (3, 2, 1)


def test_a_server_that_keeps_failing_is_reported_after_the_retries(
    openai_images: OpenAIImagesServer,
) -> None:
    openai_images.image_fault(*[Fault(IMAGES, status=502)] * 4)
    router, _ = _router(f"openai-compatible:{openai_images.base_url}:m", transient_retries=3)
    with pytest.raises(ModelError) as caught:
        router.image_model().generate(SCENE)
    assert caught.value.key == "error.image.busy" and caught.value.params["status"] == 502
    assert len(openai_images.image_requests) == 4
    assert router.usage.totals("image").images == 0


def test_a_refused_prompt_is_not_retried_and_says_so(openai_images: OpenAIImagesServer) -> None:
    openai_images.image_fault(Fault(IMAGES, refuse=True))
    router, slept = _router(f"openai-compatible:{openai_images.base_url}:m")
    with pytest.raises(ImageRefusedError) as caught:
        router.image_model().generate(SCENE)
    assert len(openai_images.image_requests) == 1 and slept == []
    assert "safety system" in caught.value.params["said"]
    assert "Edit the prompt" in caught.value.hint


def test_test_connection_lists_models_and_makes_no_picture(
    openai_images: OpenAIImagesServer,
) -> None:
    router, _ = _router(f"openai-compatible:{openai_images.base_url}:m")
    assert router.image_model().check() == "1 models"
    assert openai_images.image_requests == []


def test_openai_without_a_key_is_a_config_error() -> None:
    with pytest.raises(ConfigError) as caught:
        ModelRouter(Settings(image_model="openai:gpt-image-1")).image_model()
    assert caught.value.key == "error.image.no_key"


# ---------------------------------------------------------------------------------- SD WebUI
def test_sd_webui_txt2img_with_a_checkpoint(sdwebui: SDWebUIServer) -> None:
    router, _ = _router(f"sdwebui:{sdwebui.url}:sd_xl_base_1.0.safetensors", image_steps=20)
    image = router.image_model().generate(SCENE)
    assert _png_size(image.data) == (384, 256)
    (seen,) = [r for r in sdwebui.requests if r.path == TXT2IMG]
    assert seen.body["prompt"] == SCENE.prompt and seen.body["negative_prompt"] == SCENE.negative
    assert (seen.body["width"], seen.body["height"], seen.body["steps"]) == (1536, 1024, 20)
    assert seen.body["override_settings"] == {"sd_model_checkpoint": "sd_xl_base_1.0.safetensors"}
    assert "checkpoints" in router.image_model().check()


def test_sd_webui_faults_retry_refuse_and_name_the_missing_api(sdwebui: SDWebUIServer) -> None:
    router, slept = _router(f"sdwebui:{sdwebui.url}")
    sdwebui.fault(Fault(TXT2IMG, status=500), Fault(TXT2IMG, status=429, retry_after=2))
    assert router.image_model().generate(SCENE).data and slept == [1.0, 2.0]
    sdwebui.fault(Fault(TXT2IMG, refuse=True))
    with pytest.raises(ImageRefusedError) as refused:
        router.image_model().generate(SCENE)
    assert "safety filter" in refused.value.params["said"]
    wrong, _ = _router(f"sdwebui:{sdwebui.url}/no-api")
    with pytest.raises(ModelError) as missing:
        wrong.image_model().generate(SCENE)
    assert missing.value.key == "error.image.no_api"


def test_sd_webui_api_auth_uses_the_stored_key(tmp_path: Path) -> None:
    server = SDWebUIServer(auth=("writer", "s3cret"))
    server.start()
    try:
        spec = f"sdwebui:{server.url}"
        with pytest.raises(ModelError) as caught:
            _router(spec)[0].image_model().generate(SCENE)
        assert caught.value.key == "error.image.key_rejected"
        config = ModelConfig(tmp_path)
        config.set_key("sdwebui", "writer:s3cret")
        assert config.set_spec("image", spec) == spec
        stored = Settings(data_dir=tmp_path)
        assert stored.image_model == spec and stored.sdwebui_auth is not None
        assert ModelRouter(stored).image_model().generate(SCENE).data
        assert (tmp_path / "keys.json").stat().st_mode & 0o777 == 0o600
    finally:
        server.stop()


def test_a_checkpoint_the_server_lacks_fails_the_connection_test(sdwebui: SDWebUIServer) -> None:
    router, _ = _router(f"sdwebui:{sdwebui.url}:missing.safetensors")
    with pytest.raises(ModelError) as caught:
        router.image_model().check()
    assert caught.value.key == "error.image.no_checkpoint"


# ----------------------------------------------------------------------------------- ComfyUI
def test_comfyui_queues_waits_and_fetches(comfyui: ComfyUIServer) -> None:
    router, _ = _router(f"comfyui:{comfyui.url}:v1-5-pruned-emaonly.safetensors")
    image = router.image_model().generate(SCENE)
    assert _png_size(image.data) == (384, 256)
    queued = next(r for r in comfyui.requests if r.path == "/prompt")
    graph = queued.body["prompt"]
    assert {n["class_type"] for n in graph.values()} >= {"KSampler", "SaveImage"}
    assert graph["2"]["inputs"]["text"] == SCENE.prompt
    # polled while the run was going (empty history twice), then fetched the file
    assert len([r for r in comfyui.requests if r.path.startswith("/history/")]) == 3
    assert any(r.path.startswith("/view?filename=aizac_") for r in comfyui.requests)
    assert "ComfyUI 0.3.40" in router.image_model().check()


def test_comfyui_refusals_and_run_errors(comfyui: ComfyUIServer) -> None:
    missing, _ = _router(f"comfyui:{comfyui.url}:nope.safetensors")
    with pytest.raises(ImageRefusedError) as refused:
        missing.image_model().generate(SCENE)
    assert "failed validation" in refused.value.params["said"]
    router, _ = _router(f"comfyui:{comfyui.url}:v1-5-pruned-emaonly.safetensors")
    comfyui.fault(Fault("/prompt", refuse=True))
    with pytest.raises(ModelError) as failed:
        router.image_model().generate(SCENE)
    assert failed.value.key == "error.image.failed_run"
    assert failed.value.params["said"] == "NSFW content detected"
    comfyui.fault(Fault("/prompt", status=503))
    assert router.image_model().generate(SCENE).data  # retried


# ------------------------------------------------------------------------------- typographic
def test_the_offline_default_sets_a_cover_in_type() -> None:
    router = ModelRouter(Settings())
    model = router.image_model()
    assert model.label == "typographic" and not model.billable
    cover = ImageRequest("cover", "", 600, 900, card=Card("검의 탑", "", "김작가", "판타지"))
    first, second = model.generate(cover).data, model.generate(cover).data
    assert first == second and first.startswith(b"\x89PNG") and _png_size(first) == (600, 900)
    other = model.generate(ImageRequest("cover", "", 600, 900,
                                        card=Card("검의 탑", "", "김작가", "로맨스"))).data
    assert other != first  # another genre, another palette
    assert router.usage.totals("image").images == 3


def test_a_missing_cover_font_is_a_clear_error(tmp_path: Path) -> None:
    router = ModelRouter(Settings(cover_font=tmp_path / "none.ttf"))
    with pytest.raises(ConfigError) as caught:
        router.image_model().generate(ImageRequest("cover", "", 90, 120, card=Card("x")))
    assert caught.value.key == "error.image.font_missing"


# ------------------------------------------------------------------------------- specs, role
@pytest.mark.parametrize(("spec", "parts"), [
    ("typographic", ("typographic", "", None)),
    ("openai:gpt-image-1", ("openai", "gpt-image-1", None)),
    ("openai-compatible:http://h:8000/v1:img", ("openai-compatible", "img", "http://h:8000/v1")),
    ("sdwebui:http://127.0.0.1:7860", ("sdwebui", "", "http://127.0.0.1:7860")),
    ("sdwebui:http://127.0.0.1:7860:a.safetensors", ("sdwebui", "a.safetensors",
                                                     "http://127.0.0.1:7860")),
    ("comfyui:http://127.0.0.1:8188:b.ckpt", ("comfyui", "b.ckpt", "http://127.0.0.1:8188")),
])
def test_image_specs_parse(spec: str, parts: tuple[str, str, str | None]) -> None:
    parsed = parse_image_spec(spec)
    assert (parsed.provider, parsed.model, parsed.base_url) == parts
    assert spec_label(parsed) == spec


@pytest.mark.parametrize("bad", ["dalle", "openai", "comfyui:http://127.0.0.1:8188",
                                 "sdwebui:not-a-url", "openai-compatible:http://h:1/v1"])
def test_a_bad_image_spec_says_what_is_wrong(bad: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_image_spec(bad)
    assert caught.value.key.startswith("error.image.spec_")
    assert "AIZAC_IMAGE_MODEL" in caught.value.message


def test_the_router_describes_the_image_role() -> None:
    rows = {s.role: s for s in ModelRouter(Settings()).describe()}
    assert rows["image"].spec == "typographic" and rows["image"].usable
    bad = {s.role: s for s in ModelRouter(Settings(image_model="openai:x")).describe()}
    assert not bad["image"].usable and "OPENAI_API_KEY" in render(bad["image"].reason, "en")


def test_b64_pictures_are_checked_to_be_images(openai_images: OpenAIImagesServer) -> None:
    router, _ = _router(f"openai-compatible:{openai_images.base_url}:m")
    openai_images.handle = _answers_text(openai_images)  # type: ignore[method-assign]
    with pytest.raises(ModelError) as caught:
        router.image_model().generate(SCENE)
    assert caught.value.key == "error.image.not_image"


def _answers_text(server: OpenAIImagesServer):  # type: ignore[no-untyped-def]
    def handle(handler, seen):  # type: ignore[no-untyped-def]
        handler.send_json({"created": 0, "data": [{"b64_json": base64.b64encode(b"hi").decode()}]})

    return handle
