"""preview-update with show_nested on the real engine: the nested stacks' changes, as Heat."""

from __future__ import annotations

from hearth.db import api_stacks
from tests.fixtures.engine import CTX, create_and_wait
from tests.functional.nested import templates as t


def test_preview_update_with_show_nested_lists_the_nested_changes(service):
    request = {"files": t.files(provider=t.PROVIDER), "environment": t.REGISTRY}
    stack = create_and_wait(service, "prev-nested", t.PROVIDER_PARENT, **request)
    assert stack["stack_status"] == "CREATE_COMPLETE", stack["stack_status_reason"]

    def preview(template, **kwargs):
        changes = service.preview_update_stack(CTX, stack["id"], template=template,
                                               **request, **kwargs)["resource_changes"]
        return {kind: sorted(f"{r['parent_resource']}/{r['resource_name']}"
                             if r.get("parent_resource") else r["resource_name"]
                             for r in items)
                for kind, items in changes.items() if items}

    top = preview(t.PROVIDER_PARENT)
    assert not any("/" in name for names in top.values() for name in names)
    # the nested stacks are updated; inside them the member keeps its properties
    assert preview(t.PROVIDER_PARENT, show_nested=True) == {
        "updated": ["by_file", "by_type"], "unchanged": ["by_file/word", "by_type/word"]}
    replaced = t.PROVIDER_PARENT.replace(f"type: {t.PROVIDER_URL}", "type: OS::Heat::None")
    assert preview(replaced, show_nested=True) == {
        "replaced": ["by_file"], "deleted": ["by_file/word"], "updated": ["by_type"],
        "unchanged": ["by_type/word"]}
    # a preview changes nothing
    assert len(api_stacks.stack_get_all_by_owner(service.db, stack["id"])) == 2
