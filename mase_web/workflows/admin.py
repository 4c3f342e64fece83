from django.contrib import admin

from mase_web.workflows.models import Workflow, WorkflowVersion


class WorkflowVersionInline(admin.TabularInline):
    model = WorkflowVersion
    fields = ["number", "note", "author", "created_at"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False  # versions are made by publishing, never by hand


@admin.register(Workflow)
class WorkflowAdmin(admin.ModelAdmin):
    list_display = ["name", "project", "updated_at", "updated_by"]
    list_filter = ["project"]
    search_fields = ["name", "description"]
    readonly_fields = ["created_by", "updated_by", "created_at", "updated_at"]
    inlines = [WorkflowVersionInline]
