"""Plain text, Markdown and EPUB rendering: the exported text is exactly the prose given."""

from __future__ import annotations

import io
import re
import zipfile
from datetime import UTC, datetime
from xml.etree import ElementTree

import pytest
from markdown_it import MarkdownIt

from aizac.errors import InvalidInputError
from aizac.export.manuscript import EpisodeText, Manuscript
from aizac.export.render import (
    MEDIA_TYPES,
    book_identifier,
    check_format,
    episode_heading,
    escape_markdown,
    render,
    render_epub,
    render_md,
    render_txt,
)

XHTML = "{http://www.w3.org/1999/xhtml}"
OPF = "{http://www.idpf.org/2007/opf}"
DC = "{http://purl.org/dc/elements/1.1/}"
WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def _all_paragraphs(ms: Manuscript) -> list[str]:
    return [p for e in ms.episodes for p in e.paragraphs]


class TestHeadings:
    @pytest.mark.parametrize(
        ("language", "title", "expected"),
        [
            ("ko", "재회", "3화 재회"),
            ("ko", "", "3화"),
            ("en", "Reunion", "Episode 3: Reunion"),
            ("zh", "重逢", "第3章 重逢"),
        ],
    )
    def test_per_language(self, language: str, title: str, expected: str) -> None:
        assert episode_heading(EpisodeText(3, title), language) == expected


class TestTxt:
    def test_layout(self, korean_manuscript: Manuscript) -> None:
        text = render_txt(korean_manuscript)
        assert text.startswith(
            "달빛 검객: 서연의 길\n김작가\n\n\n1화 검을 든 소녀\n\n달빛이 검 끝에"
        )
        assert (
            "\n\n\n2화\n\n그날 밤, 두 사람은 다시 만났다.\n\n들여쓴 문단.\n\n---\n\n끝.\n" in text
        )
        assert text.endswith("3화 재회\n\n세 번째 이야기.\n")
        assert "\r" not in text

    def test_paragraphs_match_the_prose_in_order(self, korean_manuscript: Manuscript) -> None:
        blocks = [b for b in render_txt(korean_manuscript).split("\n\n") if b.strip()]
        headings = {episode_heading(e, "ko") for e in korean_manuscript.episodes}
        body = [b.strip("\n") for b in blocks[1:] if b.strip("\n") not in headings]
        assert body == _all_paragraphs(korean_manuscript)

    def test_no_author_line_when_empty(self, chinese_manuscript: Manuscript) -> None:
        assert render_txt(chinese_manuscript).startswith(
            "剑与月\n\n\n第1章 开端\n\n「你是谁？」她问。"
        )


class TestMarkdown:
    @pytest.mark.parametrize(
        "text",
        [
            "# 제목 아님",
            "## 둘",
            "> 인용 아님",
            "- 목록 아님",
            "+ 더하기",
            "* 별표",
            "1. 번호",
            "2) 괄호",
            "---",
            "***",
            "___",
            "===",
            "`코드` *강조* _밑줄_ **굵게**",
            "[링크](http://example.com) ![그림](x.png)",
            "<div>html</div> <https://example.com>",
            "역슬래시 \\ 끝\\",
            "&amp; &#35; & 그대로",
            "~~취소선~~",
            "```",
            "~~~",
            "| a | b |",
            "끝에 #",
            '그는 "안녕"이라고 말했다.',
            "「你好」他说。",
        ],
    )
    def test_each_paragraph_renders_literally(self, text: str) -> None:
        md = escape_markdown(text)
        tokens = MarkdownIt("commonmark").enable(["strikethrough", "table"]).parse(md)
        assert [t.type for t in tokens] == ["paragraph_open", "inline", "paragraph_close"]
        children = tokens[1].children or []
        assert {c.type for c in children} == {"text"}
        assert "".join(c.content for c in children) == text

    def test_document_structure_and_text(self, korean_manuscript: Manuscript) -> None:
        md = render_md(korean_manuscript)
        tokens = MarkdownIt("commonmark").parse(md)
        blocks = [
            (tokens[i - 1].type, "".join(c.content for c in tokens[i].children or []))
            for i, t in enumerate(tokens)
            if t.type == "inline"
        ]
        assert blocks[0] == ("heading_open", "달빛 검객: 서연의 길")
        assert blocks[1] == ("paragraph_open", "김작가")
        episode_headings = [text for kind, text in blocks if kind == "heading_open"][1:]
        assert episode_headings == ["1화 검을 든 소녀", "2화", "3화 재회"]
        paragraphs = [text for kind, text in blocks[2:] if kind == "paragraph_open"]
        assert paragraphs == _all_paragraphs(korean_manuscript)
        levels = [t.tag for t in tokens if t.type == "heading_open"]
        assert levels == ["h1", "h2", "h2", "h2"]

    def test_heading_with_markup_stays_literal(self) -> None:
        ms = Manuscript("제목 #", episodes=[EpisodeText(1, "*별* [괄호] #", "본문")])
        tokens = MarkdownIt("commonmark").parse(render_md(ms))
        texts = [t.content for t in tokens if t.type == "inline"]
        rendered = [
            "".join(c.content for c in t.children or []) for t in tokens if t.type == "inline"
        ]
        assert texts[0] == "제목 \\#"
        assert rendered[:2] == ["제목 #", "1화 *별* [괄호] #"]


class TestEpubStructure:
    @pytest.fixture
    def archive(self, korean_manuscript: Manuscript) -> zipfile.ZipFile:
        return zipfile.ZipFile(io.BytesIO(render_epub(korean_manuscript, modified=WHEN)))

    def test_mimetype_first_and_stored(self, archive: zipfile.ZipFile) -> None:
        first = archive.infolist()[0]
        assert first.filename == "mimetype"
        assert first.compress_type == zipfile.ZIP_STORED
        assert archive.read("mimetype") == b"application/epub+zip"
        assert "META-INF/container.xml" in archive.namelist()

    def test_package_metadata(
        self, archive: zipfile.ZipFile, korean_manuscript: Manuscript
    ) -> None:
        root = ElementTree.fromstring(archive.read("EPUB/content.opf"))
        assert root.get("version") == "3.0"
        meta = root.find(f"{OPF}metadata")
        assert meta is not None
        assert meta.findtext(f"{DC}title") == "달빛 검객: 서연의 길"
        assert meta.findtext(f"{DC}language") == "ko"
        assert meta.findtext(f"{DC}creator") == "김작가"
        assert meta.findtext(f"{DC}identifier") == book_identifier(korean_manuscript)
        modified = [
            m.text for m in meta.iter(f"{OPF}meta") if m.get("property") == "dcterms:modified"
        ]
        assert modified == ["2026-01-02T03:04:05Z"]
        manifest = root.find(f"{OPF}manifest")
        assert manifest is not None
        navs = [i for i in manifest if i.get("properties") == "nav"]
        assert len(navs) == 1

    def test_episode_documents_carry_the_exact_prose(
        self, archive: zipfile.ZipFile, korean_manuscript: Manuscript
    ) -> None:
        names = sorted(n for n in archive.namelist() if re.search(r"episode-\d+\.xhtml$", n))
        assert len(names) == 3
        for name, episode in zip(names, korean_manuscript.episodes, strict=True):
            doc = ElementTree.fromstring(archive.read(name))
            assert doc.get("lang") == "ko"
            body = doc.find(f"{XHTML}body")
            assert body is not None
            assert body.findtext(f"{XHTML}h1") == episode_heading(episode, "ko")
            assert [p.text for p in body.iter(f"{XHTML}p")] == episode.paragraphs

    def test_navigation_lists_every_episode(self, archive: zipfile.ZipFile) -> None:
        nav = ElementTree.fromstring(archive.read("EPUB/nav.xhtml"))
        labels = [a.text for a in nav.iter(f"{XHTML}a")]
        assert labels == ["1화 검을 든 소녀", "2화", "3화 재회"]
        assert nav.findtext(f".//{XHTML}h2") == "목차"

    def test_identifier_is_stable_and_distinct(self, korean_manuscript: Manuscript) -> None:
        same = Manuscript(korean_manuscript.title, korean_manuscript.author, "ko")
        other = Manuscript("다른 제목", korean_manuscript.author, "ko")
        assert book_identifier(korean_manuscript) == book_identifier(same)
        assert book_identifier(korean_manuscript) != book_identifier(other)
        assert book_identifier(korean_manuscript).startswith("urn:uuid:")
        assert book_identifier(Manuscript("t", identifier="isbn:123")) == "isbn:123"


class TestDispatch:
    def test_render_bytes_per_format(self, chinese_manuscript: Manuscript) -> None:
        assert render(chinese_manuscript, "txt") == render_txt(chinese_manuscript).encode()
        assert render(chinese_manuscript, ".MD") == render_md(chinese_manuscript).encode()
        assert render(chinese_manuscript, "epub", modified=WHEN)[:2] == b"PK"
        assert set(MEDIA_TYPES) == {"txt", "md", "epub", "docx", "zip"}

    @pytest.mark.parametrize("fmt", ["pdf", "", "epub3", "../txt"])
    def test_unknown_format(self, fmt: str) -> None:
        with pytest.raises(InvalidInputError, match="format") as info:
            check_format(fmt)
        assert "txt, md, epub" in info.value.hint

    @pytest.mark.parametrize("fmt", ["txt", "md", "epub", "docx", "zip"])
    def test_empty_manuscript_is_refused(self, fmt: str) -> None:
        with pytest.raises(InvalidInputError, match="no episodes"):
            render(Manuscript("빈 책"), fmt)
